#!/bin/sh
# .github/workflows/ci.yml: it parses as YAML (python3's yaml module, else
# perl's core CPAN::Meta::YAML), has the jobs, the matrix of runner labels
# and the artifact upload, and every `make TARGET` it runs exists here.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
WF=$TOP/.github/workflows/ci.yml
plan 3

# yaml_dump: the workflow as "path<TAB>value" lines, by whichever parser
# is present
yaml_dump() {
	if python3 -c 'import yaml' 2>/dev/null; then
		python3 - "$WF" <<-\EOP
		import sys, yaml
		def walk(p, o):
		    if isinstance(o, dict):
		        for k, v in o.items(): walk(p + [str(k)], v)
		    elif isinstance(o, list):
		        for i, v in enumerate(o): walk(p + [str(i)], v)
		    else:
		        print("/".join(p) + "\t" + str(o))
		walk([], yaml.safe_load(open(sys.argv[1])))
		EOP
	elif perl -MCPAN::Meta::YAML -e 1 2>/dev/null; then
		perl -MCPAN::Meta::YAML -e '
			my $y = CPAN::Meta::YAML->read($ARGV[0]) or die CPAN::Meta::YAML->errstr;
			sub walk { my ($p, $o) = @_;
				if (ref $o eq "HASH") { walk("$p/$_", $o->{$_}) for sort keys %$o }
				elsif (ref $o eq "ARRAY") { walk("$p/$_", $o->[$_]) for 0 .. $#$o }
				else { print substr($p, 1), "\t$o\n" } }
			walk("", $y->[0]);' "$WF"
	else
		echo "no YAML parser: python3 yaml and perl CPAN::Meta::YAML are missing" >&2
		return 1
	fi
}

test_expect_success 'ci.yml parses; push triggers it; jobs test, ci, merge' '
	yaml_dump >dump && cat dump &&
	grep -q "^jobs/test/steps/[0-9]*/run	make test$" dump &&
	grep -q "^jobs/test/container	debian:12$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/run	make GATE_PCT=5$" dump &&
	grep -q "^jobs/merge/steps/[0-9]*/run	make merge RESULTS=results$" dump &&
	{ grep -q "^on/push	" dump || grep -q "^True/push	" dump; }
'

test_expect_success 'a matrix over CPU-family runner labels, records uploaded' '
	yaml_dump >dump &&
	[ "$(grep -c "^jobs/ci/strategy/matrix/cpu/[0-9]*	" dump)" -ge 2 ] &&
	grep -q "^jobs/ci/runs-on/[0-9]*	self-hosted$" dump &&
	grep -q "^jobs/ci/runs-on/[0-9]*	\${{ matrix.cpu }}$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/uses	actions/upload-artifact@v4$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/with/path	.*out/ci/" dump
'

test_expect_success 'every make target the workflow runs exists (make -n)' '
	yaml_dump >dump &&
	sed -n "s/^jobs\/.*\/run	\(sudo \)*make *//p" dump >targets && cat targets &&
	[ -s targets ] &&
	while read -r t rest; do
		case $t in ""|*=*) t=all ;; esac
		make -C "$TOP" -n "$t" $rest >/dev/null || { echo "make -n $t fails"; exit 1; }
	done <targets
'
done_testing
