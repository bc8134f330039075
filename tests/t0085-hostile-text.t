#!/bin/sh
# Text that a contributor or a record sets is data, never code: texts
# with every character a shell, make or gnuplot reads as code (` $(...)
# ' " ; @, then a newline, a tab and bytes that are not UTF-8), each of
# them trying to create a canary file, go into every text field they
# can set: a patch subject and a record's host, CPU, case, metric, unit
# and variant (the plots: gnuplot renders every script, without a
# warning), make's variables (ID, RESULTS, COMMITS, SPECS, BENCH_ARGS:
# the script behind the target refuses the value by name, and the
# target fails; OUT and BIN: make refuses them), and the fields of a
# reproducer's metadata.json (each checked before anything boots; the
# materials run from a directory of any name).  The canary is never
# there.  A record's text is one line of UTF-8 (the record reader refuses
# a control character or bytes that are not UTF-8 by file, line and
# field, t0682): the plots get each text's first line, and the whole
# text is refused.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:ci-report tool:ci-reproduce
B=1111111111111111111111111111111111111111
H=3333333333333333333333333333333333333333
MK="make -C $TOP --no-print-directory BIN=$BIN SANITIZE=1"

# hostile N: the Nth hostile text, each a way into code that creates the
# canary $C, then a newline, a tab and two bytes that are not UTF-8.
# 0: the shell's, whatever it is pasted in ('...', "..." or nothing:
# one $(...) or the other is outside the quotes) and gnuplot's "..." (a
# backquote); 1, 2: the end of gnuplot's '...' or "..." and its system
# command; 3: gnuplot's @macros, and what SVG escapes; 4: the issue's
# subject, one line with a short backquote, as an x axis label has it
# whole (gnuplot runs in plots/, in $SCRATCH)
hostile() {
	case $1 in
	4) h="a \`:>../canary\` b" ;;
	0) h="a'\$(touch $C)'\$(touch $C)\"@\";\`touch $C\`" ;;
	1) h="a'; system 'touch $C'; x = 'b" ;;
	2) h="a\"; system \"touch $C\"; x = \"b" ;;
	3) h="a @ARG0 @x b <&>" ;;
	esac
	[ "$1" = 4 ] || h=$(printf '%s\n\t\377\376 z' "$h")
	printf '%s' "$h"
}

# no_canary WHAT: the canary is not there (it was: WHAT ran it)
no_canary() {
	[ ! -e "$C" ] || { echo "$1 ran the text as code: $C was created"; rm -f "$C"; return 1; }
}

# plots_of TEXT [RTEXT]: one patch whose subject has TEXT's first line,
# records whose host, CPU, case, metric, unit and variant are RTEXT
# (default: TEXT's first line), made into plots as make report makes
# them: ci-report, then gnuplot on every script in plots/, which must
# render both pictures without a word
plots_of() {
	rm -rf patches plots && mkdir -p patches &&
	subj="string: introduce $(printf '%s' "$1" | head -n 1) memcpy_nontemporal()" &&
	printf '0001-a.mbox applied\n' >patches/series &&
	{ printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n' &&
	  printf 'From: T <t@example.org>\nDate: Mon, 30 Nov 2026 12:00:00 +0000\n' &&
	  printf 'Subject: [PATCH 1/1] %s\n\nWhy.\n\nSigned-off-by: T <t@example.org>\n' "$subj" &&
	  printf -- '---\n a | 1 +\n 1 file changed, 1 insertion(+)\n\n' &&
	  printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -0,0 +1 @@\n+x\n'; } >patches/0001-a.mbox &&
	printf '%s\tbase\n%s\t%s\n' $B $H "$subj" >commits.txt &&
	python3 - "${2:-$(printf '%s' "$1" | head -n 1)}" $B $H >r.jsonl <<-\PY &&
	import json, sys
	t, b, h = sys.argv[1:4]
	def rec(suite, case, metric, unit, commit, samples, params):
	    return {"schema": "x86-copy-series/record/1", "suite": suite, "case": case,
	            "metric": metric, "unit": unit, "samples": samples, "commit": commit,
	            "kernel": "6.12.117+", "accel": "tcg",
	            "cpu": {"vendor": "GenuineIntel", "family": 6, "model": 106, "stepping": 6,
	                    "model_name": t, "flags": ["erms"]},
	            "host": t, "time": "2026-11-30T12:00:00Z", "params": params}
	out = []
	for c, m in ((b, 100.0), (h, 90.0)):
	    out.append(rec("bench-vm", "nd_pmem/rebind", "memmap_init_ms " + t, "ms", c,
	                   [m, m + 1, m + 2], {"ns_size": 4294967296, "rebinds": 3, "cpu_model": t}))
	    for size in (64, 4096):
	        out.append(rec("bench", "sweep " + t + "/v " + t + "/" + str(size), t, t, c,
	                       [m / 10, m / 10 + 1], {"variant": t + "-" + str(size), "size": size}))
	text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
	sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
	PY
	"$BIN/ci-report" --commits commits.txt --plots plots r.jsonl >r.txt 2>r.err &&
	(cd plots && for g in *.gp; do
		gnuplot "$g" 2>"$g.err" && [ ! -s "$g.err" ] && [ -s "${g%.gp}.png" ] && [ -s "${g%.gp}.svg" ] ||
			{ echo "gnuplot $g: exit $?"; cat "$g.err" "$g"; exit 1; }
	done) &&
	[ "$(find plots -name "*.gp" | wc -l)" = 2 ]
}

test_expect_success 'plots: a subject and a record'"'"'s texts are labels as they read, every script renders, nothing runs' '
	C=$SCRATCH/canary &&
	for n in 4 0 1 2 3; do
		plots_of "$(hostile $n)"; rc=$?
		no_canary "text $n of the plots" && [ "$rc" = 0 ] || return 1
		# the texts are there to read: the patch on the x axis, the case in the title
		grep -q "^set xtics .*.base. 0, .1/1 " plots/bench-vm.*.gp &&
		grep -q "^set title .bench sweep a" plots/bench-sweep*.gp || return 1
		# the whole text in a record: refused by file, line and field
		[ "$n" = 4 ] && continue
		plots_of "$(hostile $n)" "$(hostile $n)"; rc=$?
		no_canary "text $n refused" && [ "$rc" = 1 ] &&
			grep -q "^ci-report: records: r.jsonl:1: field .[a-z_.]*. has a control character (byte [0-9]*): " r.err ||
			return 1
	done
'

# make TARGET VAR=TEXT: the target fails, by the words of the script
# behind it, and runs nothing of TEXT; its directories are this test's
make_refuses() {
	rc=0
	WORKTREE=$SCRATCH/o/tree $MK OUT="$SCRATCH/o" "$@" >out 2>err || rc=$?
	cat err
	no_canary "make $*" && [ "$rc" != 0 ] &&
		grep -Eq "^(ci|merge|reproduce|bench|kunit): [a-z -]+: " err
}

test_expect_success 'make: ID, RESULTS, COMMITS, SPECS and BENCH_ARGS reach the scripts as values, as written; a failure stays one' '
	C=$SCRATCH/canary && t=$(hostile 0) &&
	make_refuses reproduce ID="$t" && make_refuses merge RESULTS="$t" &&
	make_refuses build COMMITS="$t" && make_refuses checks COMMITS="$t" &&
	make_refuses bench COMMITS="$t" && make_refuses bench-vm COMMITS="$t" &&
	make_refuses checks-kunit COMMITS="$t" && make_refuses bench-diffs SPECS="$t" &&
	make_refuses bench-diffs BENCH_ARGS="$t" &&
	make_refuses bench COMMITS=no-such-commit BENCH_ARGS="$t" &&
	# the failure of a value with a ";" in it is the target'"'"'s
	make_refuses merge RESULTS="/nonexistent; true" && grep -q "^merge: inputs: ./nonexistent;. does not exist" err &&
	# a make reference in it reaches the script as written, not expanded to nothing
	make_refuses merge RESULTS="/nonexistent\$(CURDIR)x" &&
	grep -q "^merge: inputs: ./nonexistent\$(CURDIR)x. does not exist" err
'

# (make clean: its recipe pastes both; a BIN and an OUT of this test's
# own each time, so that whatever it removes is the test's; a blank in
# a path is tried on make help, which runs none)
test_expect_success 'make: an OUT or BIN that its rules would paste as code, or a toolkit directory with a blank, is refused before any rule runs' '
	C=$SCRATCH/canary &&
	for v in "$SCRATCH/o;:>$C;o" "$SCRATCH/o\$\$(:>$C)" "$SCRATCH/o\`:>$C\`" "$SCRATCH/o b"; do
		for var in OUT BIN; do
			t=clean && [ "$v" != "$SCRATCH/o b" ] || t=help
			rc=0 && make -C "$TOP" --no-print-directory $t OUT="$SCRATCH/o" BIN="$SCRATCH/b/bin" \
				"$var=$v" >out 2>err || rc=$?
			cat err; no_canary "make $t $var=$v" && [ "$rc" = 2 ] &&
			grep -q "\*\*\* make: $var: .* has blanks or one of .*: give a plain path" err || return 1
		done
	done &&
	# a clone in a directory with a blank: named as such, not as OUT
	mkdir "x y" && cp "$TOP/Makefile" "x y/" && rc=0 && make -C "x y" help >out 2>err || rc=$?
	cat err; [ $rc = 2 ] && grep -q "\*\*\* make: the toolkit.s directory .$SCRATCH/x y. has blanks or one of .*: clone it to a plain path" err
'

# materials DIR: a reproducer's materials, as make reproduce lays them
# out, whose metadata.json is valid and whose guest is a fake QEMU that
# answers its version and writes down any other command ($SCRATCH/booted)
materials() {
	mkdir -p "$1/bin" "$1/bench-vm" "$1/scripts" "$1/series" "$1/kernels/$B/arch/x86/boot" \
		"$1/kernels/$H/arch/x86/boot" &&
	cp "$TOP/review/reproduce-claim.sh" "$1/reproduce.sh" &&
	cp "$BIN/ci-reproduce" "$BIN/bench-vm-collect" "$BIN/bench-vm-agent" "$BIN/gen_init_cpio" "$1/bin/" &&
	cp "$TOP"/bench-vm/*.sh "$1/bench-vm/" &&
	cp "$TOP"/scripts/lib*.sh "$TOP/scripts/owner.sh" "$1/scripts/" && cp "$TOP/series/pin.conf" "$1/series/" &&
	echo kernel >"$1/kernels/$B/arch/x86/boot/bzImage" && echo kernel >"$1/kernels/$H/arch/x86/boot/bzImage" &&
	cp "$BUILD_ID" "$1/kernels/$B/" && cp "$BUILD_ID" "$1/kernels/$H/" &&
	printf "#!/bin/sh\n[ \"\$1\" != --version ] || { echo \"QEMU emulator version 7.2.0 (fake)\"; exit 0; }\necho \"\$*\" >>\"%s/booted\"\nexit 1\n" "$SCRATCH" >qemu &&
	chmod +x qemu && metadata "$1"
}

# metadata DIR [FIELD VALUE]: DIR/metadata.json, FIELD (sides.0.commit,
# run.cpu...) set to VALUE, and SHA256SUMS anew: a changed copy that
# passes the reproducer's check of the files
metadata() {
	python3 - "$@" $B $H <<-\PY &&
	import json, sys
	d = sys.argv[1]
	field, value = (sys.argv[2], sys.argv[3]) if len(sys.argv) == 6 else (None, None)
	b, h = sys.argv[-2:]
	side = lambda c, role: {"role": role, "commit": c, "case": "nd_pmem/rebind",
	                        "metric": "memmap_init_ms", "unit": "ms", "samples": [1.0], "mean": 1.0,
	                        "case_metrics": {"memmap_init_ms": [1.0]}}
	m = {"schema": "x86-copy-series/reproduce/1",
	     "claim": {"id": "series-icount/nd_pmem", "what": "nd_pmem memmap init"},
	     "run": {"qemu_version": "QEMU emulator version 7.2.0 (fake)", "accel": "tcg",
	             "clock": "icount", "cpu": "max", "ns_size": "512M", "rebinds": "1",
	             "mem_ns": "0", "guest_mem_mb": "640", "kernel_args": "", "agent_opts": "",
	             "model": "none", "pages": "0"},
	     "sides": [side(b, "from"), side(h, "to")], "exact": True, "materials": {}}
	if field:
	    o = m
	    keys = field.split(".")
	    for k in keys[:-1]:
	        o = o[int(k)] if isinstance(o, list) else o[k]
	    o[keys[-1]] = value
	text = json.dumps(m, ensure_ascii=False, indent=1) + "\n"
	open(d + "/metadata.json", "wb").write(text.encode("utf-8", "surrogateescape"))
	PY
	(cd "$1" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | xargs sha256sum) >"$1.sums" &&
	mv "$1.sums" "$1/SHA256SUMS"
}

FIELDS='run.kernel_args run.cpu run.ns_size run.rebinds run.mem_ns run.guest_mem_mb run.accel run.clock run.model run.agent_opts sides.0.commit sides.1.commit'
test_expect_success 'reproduce.sh: every field of metadata.json, hostile in turn, is refused by name before anything boots' '
	C=$SCRATCH/canary && materials m &&
	for f in $FIELDS; do
		metadata m "$f" "$(hostile 0)" &&
		rc=0 && QEMU=$PWD/qemu NVDIMM_DIR=$SCRATCH sh m/reproduce.sh >out 2>err || rc=$?
		no_canary "metadata $f" && [ ! -e booted ] && [ "$rc" = 1 ] &&
		tail -n 1 err | grep -q "^reproduce: metadata: " || { cat err; return 1; }
	done
'

test_expect_success 'reproduce.sh: a commit that names another directory is refused; --print-cmd checks first too' '
	C=$SCRATCH/canary && materials m &&
	for c in ../../../x "$B/../$H" "$(printf %039d 0)" "$B " "ABCDEF$(printf %034d 0)"; do
		metadata m sides.1.commit "$c" &&
		rc=0 && QEMU=$PWD/qemu NVDIMM_DIR=$SCRATCH sh m/reproduce.sh >out 2>err || rc=$?
		cat err; [ "$rc" = 1 ] && [ ! -e booted ] && [ ! -e x ] &&
		grep -q "^reproduce: metadata: sides.1.commit .* is not a commit id (40 hex digits)" err || return 1
	done &&
	metadata m run.kernel_args "$(hostile 0)" &&
	rc=0 && QEMU=$PWD/qemu NVDIMM_DIR=$SCRATCH sh m/reproduce.sh --print-cmd >out 2>err || rc=$?
	cat err; [ "$rc" = 1 ] && [ ! -s out ] && grep -q "^bench-vm: usage: KERNEL_ARGS: " err &&
	# the tool that compares: a commit of the metadata is a commit id too
	metadata m sides.0.commit ../x && expect_fail m/bin/ci-reproduce verify m/metadata.json m/run &&
	grep_err "ci-reproduce: metadata: .*: sides.0.commit .../x. is not a commit id"
'

test_expect_success 'reproduce.sh: the materials run from a directory of any name; the command it shows reads back as it ran' '
	C=$SCRATCH/canary && d="$SCRATCH/m'"'"'x \$(touch canary) \`touch canary\`;" && materials "$d" &&
	metadata "$d" claim.what "$(hostile 0)" &&
	QEMU=$PWD/qemu NVDIMM_DIR=$SCRATCH sh "$d/reproduce.sh" --print-cmd >cmd 2>err &&
	cat cmd && [ "$(wc -l <cmd)" = 2 ] && no_canary "--print-cmd" &&
	# each line, read back by a shell, is the argv: the kernel in the materials
	(eval "set -- $(head -n 1 cmd)" && while [ "$1" != --kernel ]; do shift; done &&
	 [ "$2" = "$d/kernels/$B/arch/x86/boot/bzImage" ]) &&
	rc=0 && QEMU=$PWD/qemu NVDIMM_DIR=$SCRATCH sh "$d/reproduce.sh" >out 2>err || rc=$?
	cat err; no_canary "a run" && [ "$rc" = 1 ] && grep -q "^reproduce: run: the guest of $B failed" err &&
	grep -qF -- "-kernel $d/kernels/$B/arch/x86/boot/bzImage" booted
'
done_testing
