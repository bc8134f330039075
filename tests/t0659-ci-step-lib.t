#!/bin/sh
# The helpers a run calls for every step of every commit, read by the
# shell where a process would cost milliseconds (ci/step-lib.sh,
# scripts/lib.sh): files_hash hashes each plain file under its own name
# (a backslash, a newline, quotes, $( and a blank in it), says missing for
# what it cannot read (a FIFO is never opened); step_const reads the
# steps table (commas to blanks, '-' nothing) unless the step has a
# function, and runs nothing a row holds; line_of reads a one-line file
# as $(cat) would; rm_there removes what is there, a dangling link too.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"

# helpers SCRIPT: SCRIPT run with lib.sh's helpers and step-lib.sh's ($0
# a path in the toolkit: lib.sh finds TOP from it, as from a script's)
helpers() {
	env TOP="$TOP" sh -c '. "$TOP/scripts/lib.sh" && . "$TOP/ci/step-lib.sh" && eval "$1"' "$TOP/ci/helpers" "$1"
}

test_expect_success 'files_hash: every name as it is, a FIFO and a directory missing, nothing run' '
	mkdir d && printf a >"d/back\\slash" && printf b >"$(printf "d/new\\nline")" &&
	printf c >"d/q\"\$(touch pwn)\`touch pwn\`;x" && printf e >"d/sp ace" &&
	mkfifo d/fifo && mkdir d/dir &&
	want() { printf "%s %s\\n" "$(sha256sum <"$1" | cut -d" " -f1)" "$1"; } &&
	{ want "d/back\\slash" && want "$(printf "d/new\\nline")" &&
	  want "d/q\"\$(touch pwn)\`touch pwn\`;x" && want "d/sp ace" &&
	  echo "missing d/fifo" && echo "missing d/dir" && echo "missing d/none"; } >want &&
	env TOP="$TOP" timeout 20 sh -c ". \"\$TOP/scripts/lib.sh\"; . \"\$TOP/ci/step-lib.sh\"; files_hash \"\$@\"" \
		"$TOP/ci/fh" "d/back\\slash" "$(printf "d/new\\nline")" "d/q\"\$(touch pwn)\`touch pwn\`;x" \
		"d/sp ace" d/fifo d/dir d/none >got &&
	cmp want got && [ ! -e pwn ] &&
	helpers "files_hash" >none && [ ! -s none ]
'

test_expect_success 'step_const: the table read by the shell, a step function first, nothing a row holds run' '
	cat >table <<-\EOF &&
	build    kernel     -     -         -
	bench-vm guest      build base,head,x 7
	x*       q$(touch${IFS}pwn);`touch${IFS}pwn` -  -   -
	EOF
	helpers "CI_STEP_TABLE=\$(cat table)
step_bench_vm_typical() { echo 99; }
for q in \"build kind\" \"build needs\" \"bench-vm commits\" \"bench-vm typical\" \"bench-vm needs\" \"x* kind\" \"x kind\" \"nope kind\" \"build other\"; do
	printf \"%s=[%s]\\n\" \"\$q\" \"\$(step_const \$q)\"
done" >got &&
	cat >want <<-\EOF &&
	build kind=[kernel]
	build needs=[]
	bench-vm commits=[base head x]
	bench-vm typical=[99]
	bench-vm needs=[build]
	x* kind=[q$(touch${IFS}pwn);`touch${IFS}pwn`]
	x kind=[]
	nope kind=[]
	build other=[]
	EOF
	cmp want got && [ ! -e pwn ]
'

test_expect_success 'line_of: the first line, without its newline or with none; false for an empty or missing file' '
	printf "k1\\nk2\\n" >two && printf "last" >nonl && : >empty &&
	helpers "line_of two && echo \"[\$line]\"; line_of nonl && echo \"[\$line]\";
		line_of empty || echo empty-false; line_of none || echo none-false" >got 2>err &&
	printf "[k1]\\n[last]\\nempty-false\\nnone-false\\n" >want && cmp want got && [ ! -s err ]
'

test_expect_success 'rm_there: removes what is there (a dangling link too), nothing when nothing is' '
	mkdir -p t/a && : >t/f && ln -s nowhere t/link &&
	helpers "rm_there t/a t/none && rm_there t/link && rm_there t/none t/none2 && rm_there t/f" &&
	[ ! -e t/a ] && [ ! -L t/link ] && [ ! -e t/f ] && [ -d t ]
'

done_testing
