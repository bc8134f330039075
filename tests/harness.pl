#!/usr/bin/perl
# harness.pl: prove's runner (TAP::Harness, as prove -f --merge --timer)
# with the suite's lanes, which prove's --rules cannot say: the shared
# files in order, the lanes among them side by side once the files
# before them have ended, and every parallel file beside all of that.
# tests/run-suite.sh gives the lists; a list is files joined by ','.
#
#   harness.pl JOBS PRE LANE... -- POST -- PARALLEL...
#
# PRE runs first, in order; then each LANE (in order within itself), all
# at once; then POST, in order.  Each PARALLEL file runs on its own as a
# job is free, the shared files taking a free job first.
use strict;
use warnings;
use TAP::Harness;

my $jobs = shift @ARGV;
my $list = sub { [grep { $_ ne '' } split /,/, shift] };
my @pre = @{$list->(shift @ARGV)};
my (@lanes, @post, @par);
my $part = 0;
for my $a (@ARGV) {
	if ($a eq '--') {
		$part++;
	} elsif ($part == 0) {
		my $l = $list->($a);
		push @lanes, $l if @$l;
	} elsif ($part == 1) {
		push @post, @{$list->($a)};
	} else {
		push @par, $a;
	}
}
die "harness.pl JOBS PRE LANE... -- POST -- PARALLEL...\n" unless $part == 2 && $jobs =~ /^[1-9][0-9]*$/;

# a file's name as the scheduler's glob matches it: exactly
sub exact { my $f = shift; $f =~ s/([\\\[\]{}*?,])/\\$1/g; return $f; }

my @shared = map { exact($_) } @pre;
push @shared, { par => [map { { seq => [map { exact($_) } @$_] } } @lanes] } if @lanes;
push @shared, map { exact($_) } @post;
my @rules;
push @rules, { seq => \@shared } if @shared;
push @rules, map { { seq => exact($_) } } @par;
my @files = (@pre, (map { @$_ } @lanes), @post, @par);
die "harness.pl: no test files\n" unless @files;

my $harness = TAP::Harness->new({
	jobs => $jobs,
	merge => 1,
	timer => 1,
	failures => 1,
	rules => { par => \@rules },
});
my $agg = $harness->runtests(@files);
exit($agg->all_passed ? 0 : 1);
