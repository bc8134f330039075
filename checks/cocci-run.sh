# checks/cocci-run.sh: coccinelle's rules (ours, and the kernel's of a
# report mode) over the file versions a commit touches, both sides, each
# rule once per run, results cached by (rule, blob).  Sourced by
# checks/checks.sh; POSIX sh.
# shellcheck disable=SC2154 # base: checks.sh's

# coccinelle: every rule on every (side, file) version.  Each rule runs
# once over a directory of all the file versions it has not seen, so
# spatch's start-up (about 2 s of CPU per rule) is paid once per rule and
# run; results are cached per (rule content, file blob).
COCCI_RULES=""
cocci_rules() {
	[ -n "$COCCI_RULES" ] && return
	cr_d=$CDIR/cocci-rules
	if [ ! -f "$cr_d/.stamp" ] || [ "$(cat "$cr_d/.stamp")" != "$base" ]; then
		rm -rf "$cr_d" && mkdir -p "$cr_d/kernel"
		kgit archive "$base" scripts/coccinelle | tar -x -C "$cr_d/kernel" ||
			die "cocci: cannot extract scripts/coccinelle of $base"
		echo "$base" | write_file "$cr_d/.stamp"
	fi
	# ours, then the kernel rules that have a report mode (COCCI_SET=ours:
	# none)
	COCCI_RULES=$(ls "$TOP"/checks/cocci/*.cocci)
	if [ "$COCCI_SET" = ours ]; then
		echo "cocci: skipped: the kernel's rules (COCCI_SET=ours)" | write_file "$CDIR/cocci-skipped" ||
			die "cocci: cannot write $CDIR/cocci-skipped (disk full?)"
		return
	fi
	write_file "$CDIR/cocci-skipped" kernel_rules || die "cocci: cannot write $CDIR/cocci-skipped (disk full?)"
}

# kernel_rules: the kernel's rules of a report mode into COCCI_RULES; those
# left out, a line each on stdout (cocci-skipped)
kernel_rules() {
	for r in $(grep -l '^virtual report' "$cr_d"/kernel/scripts/coccinelle/*/*.cocci); do
		# Debian's spatch has no OCaml scripting (no ocamlopt)
		if grep -q '^@script:ocaml\|^@initialize:ocaml' "$r"; then
			echo "cocci: skipped: ${r#"$cr_d/kernel/"}: OCaml script rules need ocamlopt"
			continue
		fi
		COCCI_RULES="$COCCI_RULES $r"
	done
}

# "cache-dir rule-name" per rule, computed once
COCCI_KEYS=""
cocci_keys() {
	[ -n "$COCCI_KEYS" ] && return
	COCCI_KEYS=$(for r in $COCCI_RULES; do echo "$(cocci_key "$r") $(basename "$r" .cocci)"; done)
}

# the cache directory of a rule: its name, a hash of its content and the
# tools' versions
cocci_key() {
	echo "$CACHE/cocci/$(basename "$1" .cocci)-$(sha256sum <"$1" | cut -c1-12)-$TOOLS_KEY"
}

# cocci_queue SIDE FILE...: queue the blobs of the C files among FILEs
cocci_queue() {
	side=$1
	shift
	for f; do
		case $f in *.c | *.h) ;; *) continue ;; esac
		b=$(kgit rev-parse -q --verify "$side:$f") || continue
		# added to while the run goes on: a link there refused
		no_link "$CDIR/cocci-queue" && echo "$b $f" >>"$CDIR/cocci-queue" ||
			die "cocci: cannot write $CDIR/cocci-queue"
	done
}

cocci_run() {
	[ -s "$CDIR/cocci-queue" ] || return 0
	store=$CDIR/cocci-blobs
	mkdir -p "$store"
	sort -u "$CDIR/cocci-queue" | while read -r b f; do
		[ -f "$store/$b.${f##*.}" ] || write_file "$store/$b.${f##*.}" kgit cat-file blob "$b" ||
			die "cocci: cannot write $store/$b.${f##*.} (disk full?)"
	done
	nv=$(sort -u "$CDIR/cocci-queue" | wc -l)
	progress cocci "$(echo "$COCCI_RULES" | wc -w) rules on $nv file version(s) (cached ones skipped)"
	for r in $COCCI_RULES; do
		k=$(cocci_key "$r")
		in=$CDIR/cocci-in
		rm -rf "$in" && mkdir -p "$in" "$k"
		sort -u "$CDIR/cocci-queue" | while read -r b f; do
			[ -f "$k/$b" ] || ln "$store/$b.${f##*.}" "$in/"
		done
		[ -n "$(ls "$in")" ] || continue
		opts=$(sed -n 's|^// *Options: *||p' "$r" | head -n 1)
		# Options come from the rule, as scripts/coccicheck does.
		# shellcheck disable=SC2086 # object and file lists, a word each
		# (its stderr into a new file beside cocci-rule.err, renamed in)
		rule_err=$(tmp_beside "$CDIR/cocci-rule.err") || die "cocci: cannot write in $CDIR"
		# shellcheck disable=SC2086 # object and file lists, a word each
		if ! write_file -k "$CDIR/cocci-rule.out" spatch -D report --very-quiet --no-show-diff --no-includes \
			--include-headers $opts --sp-file "$r" --dir "$in" 2>"$rule_err"; then
			mv -f -T "$rule_err" "$CDIR/cocci-rule.err"
			warn "cocci: spatch failed with $(basename "$r"): $(tail -n 1 "$CDIR/cocci-rule.err")"
			no_link "$CDIR/cocci-skipped" &&
				echo "cocci: failed: $(basename "$r"): $(tail -n 1 "$CDIR/cocci-rule.err")" >>"$CDIR/cocci-skipped" ||
				die "cocci: cannot write $CDIR/cocci-skipped"
			continue
		fi
		mv -f -T "$rule_err" "$CDIR/cocci-rule.err"
		for v in "$in"/*; do
			b=$(basename "$v")
			# "/path/<blob>.c:12:3-9: msg" -> "@FILE@:12:3-9: msg"
			grep -F "$v:" "$CDIR/cocci-rule.out" | sed "s|$v:|@FILE@:|" | write_file "$k/${b%.*}" ||
				die "cocci: cannot write $k/${b%.*} (disk full?)"
		done
	done
	write_file "$CDIR/cocci-queue" true || die "cocci: cannot write $CDIR/cocci-queue"
}

# normalised cocci findings of FILE at SIDE: "file: rule: msg"
cocci_findings() {
	b=$(kgit rev-parse -q --verify "$1:$2") || return 0
	echo "$COCCI_KEYS" | while read -r k rn; do
		[ -f "$k/$b" ] || { grep -q ": $rn.cocci:" "$CDIR/cocci-skipped" && continue; }
		# (in a pipeline: die would only end the subshell)
		[ -f "$k/$b" ] || {
			no_link "$CDIR/cocci-missing" &&
				echo "no result of $rn.cocci for $2 at $1" >>"$CDIR/cocci-missing"
			continue
		}
		sed -E "s|^@FILE@:[0-9]+:[0-9-]+: *|$2: $rn: |" "$k/$b"
	done
}
