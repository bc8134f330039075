#!/bin/sh
# kconfig.sh: the guest kernel's configuration, sourced after lib.sh by
# what configures a kernel (build/build.sh, bench-vm/checked.sh,
# checks/checks.sh and checks/kunit.sh): only their settings depend on
# KCONFIG, not those of every script that sources lib.sh (ci/run.sh
# hashes the files a step sources into its stamp).

# The guest kernel's configuration, by name (KCONFIG): its fragments,
# merged in order on tinyconfig.
#   distro  build/kernel.config + build/distro.config: the measured
#           code is a distro kernel's (Debian's values; the codegen check
#           proves it); the default of make, make quick and make ci
#   tiny    build/kernel.config alone: tinyconfig's -Os and no
#           mitigations, a kernel nobody runs; 2-3 times quicker to build,
#           for the tests and a first try (its figures are labelled so)
# kconfig_parts NAME: the fragments of NAME, a path a line; usage error
# for another name
kconfig_parts() {
	case $1 in
	distro) printf '%s\n' "$TOP/build/kernel.config" "$TOP/build/distro.config" ;;
	tiny) printf '%s\n' "$TOP/build/kernel.config" ;;
	*) usage_die "KCONFIG: '$1' is not distro (a distro kernel's code: the default) or tiny (tinyconfig at -Os, quicker to build)" ;;
	esac
}

# kconfig_name: the configuration's name, KCONFIG or its default (distro)
kconfig_name() {
	printf '%s\n' "${KCONFIG:-distro}"
}

# kconfig_merge FRAGMENT...: the fragments as one, in their order, a
# symbol set twice keeping its last value (and its first place)
kconfig_merge() {
	awk '/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2 }
		s != "" { if (!(s in v)) order[++n] = s; v[s] = $0; s = "" }
		END { for (i = 1; i <= n; i++) print v[order[i]] }' "$@"
}

# guest_fragment: the fragment of $KCONFIG (default distro), its parts
# merged into one file, $OUT/kconfig/<name>.config, rewritten only when
# its content changes: a symbol set twice keeps its last value (distro's
# NR_CPUS over kernel.config's), so that kconfig_verify can ask for every
# line.  Prints its path.
guest_fragment() {
	gf_name=${KCONFIG:-distro}
	gf_parts=$(kconfig_parts "$gf_name") || exit 2
	gf_file=$OUT/kconfig/$gf_name.config
	mkdir -p "$OUT/kconfig" || die "config: cannot create $OUT/kconfig"
	# shellcheck disable=SC2086 # the parts: our paths, a word each
	kconfig_merge $gf_parts >"$gf_file.tmp.$$" ||
		die "config: cannot write $gf_file (disk full?)"
	if cmp -s "$gf_file.tmp.$$" "$gf_file"; then
		rm -f "$gf_file.tmp.$$"
	else
		mv "$gf_file.tmp.$$" "$gf_file" || die "config: cannot write $gf_file"
	fi
	printf '%s\n' "$gf_file"
}

# kconfig_fragment SRC O FRAGMENT [MAKE_ARG...]: O/.config for the tree at
# SRC: tinyconfig, then FRAGMENT merged, then olddefconfig (with MAKE_ARGs
# such as LLVM=1), then kconfig_verify.  The one way build, checks and
# KUnit configure a kernel.  Its host programs (conf, fixdep) go through
# ccache, as the builds' do: every build starts in an empty O=.
# (kf_*: sh has no locals, and callers have their own $o, $src)
kconfig_fragment() {
	kf_src=$1 kf_o=$2 kf_frag=$3
	shift 3
	mkdir -p "$kf_o" &&
	make -s -C "$kf_src" O="$kf_o" HOSTCC="ccache gcc" "$@" tinyconfig >/dev/null &&
	"$kf_src/scripts/kconfig/merge_config.sh" -m -O "$kf_o" "$kf_o/.config" "$kf_frag" >/dev/null &&
	make -s -C "$kf_src" O="$kf_o" HOSTCC="ccache gcc" "$@" olddefconfig >/dev/null || {
		echo "$PROG: config: tinyconfig + $kf_frag in $kf_o failed" >&2
		return 1
	}
	kconfig_verify "$kf_o/.config" "$kf_frag"
}

# kconfig_verify CONFIG FRAGMENT: every option FRAGMENT sets is in CONFIG
# as it is set there (merge_config.sh and olddefconfig only warn, or say
# nothing, when a dependency drops one)
kconfig_verify() {
	grep -E '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set$' "$2" | while read -r want; do
		case $want in
		'#'*)
			# "# CONFIG_X is not set": no value of X
			kv_sym=${want#\# }
			kv_sym=${kv_sym%% *}
			! grep -q "^$kv_sym=" "$1" || {
				echo "$PROG: config: '$want' from $2 did not take effect in $1: $(grep "^$kv_sym=" "$1") (a select?)" >&2
				return 1
			}
			;;
		*)
			grep -qxF "$want" "$1" || {
				echo "$PROG: config: '$want' from $2 did not take effect in $1 (a missing dependency?)" >&2
				return 1
			}
			;;
		esac
	done
}
