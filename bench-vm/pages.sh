# bench-vm/pages.sh: the struct page digest module of bench-vm/run.sh
# (--pages, bench-vm/pages), built against the kernel's own build
# directory (the one that holds bzImage): its struct page layout and
# symbols are that commit's.  Sourced by run.sh; it reads run.sh's kernel,
# commit, results, dest and label.
#
#   pages_module    builds it into $results/pages-module; sets module (the
#                   .ko), and restore and srctree while the worktree is
#                   moved (run.sh's cleanup moves it back); a build that
#                   fails keeps its log (keep_stage) and dies
# shellcheck disable=SC2154,SC2034 # run.sh's variables, named above
pages_module() {
	build_dir=$(cd "$(dirname "$kernel")/../../.." && pwd)
	[ -f "$build_dir/.config" ] && [ -f "$build_dir/Makefile" ] ||
		die "pages: $build_dir is not the kernel's build directory (no .config): the module needs it"
	grep -qx CONFIG_MODULES=y "$build_dir/.config" ||
		die "pages: $build_dir/.config lacks CONFIG_MODULES=y"
	srctree=$(cd "$build_dir/source" && pwd -P) ||
		die "pages: $build_dir/source (the kernel source of the build) is missing"
	# kbuild compiles the module with the headers of the source tree as it
	# is checked out now: they must be the commit's.  With
	# PAGES_CHECKOUT=1 (make bench-vm) the toolkit's worktree is moved to
	# the commit for the module build, as build.sh does, and moved back.
	restore=
	if [ -n "$commit" ] && git -C "$srctree" rev-parse -q --verify "$commit^{commit}" >/dev/null; then
		if ! git -C "$srctree" diff --quiet "$commit" -- include arch/x86/include; then
			[ "${PAGES_CHECKOUT:-}" = 1 ] ||
				die "pages: $srctree is not at $commit (its headers differ): check it out, or set PAGES_CHECKOUT=1"
			[ -z "$(git -C "$srctree" status --porcelain --untracked-files=no)" ] ||
				die "pages: $srctree has local changes: not checking out $commit there"
			restore=$(git -C "$srctree" rev-parse HEAD)
			git -C "$srctree" checkout -q --detach "$commit" ||
				die "pages: git checkout $commit in $srctree failed"
		fi
	else
		warn "pages: no commit id for $kernel: the module's headers are $srctree's as checked out"
	fi
	moddir=$results/pages-module
	rm -rf "$moddir"
	mkdir -p "$moddir" &&
		cp "$TOP/bench-vm/pages/Kbuild" "$TOP/bench-vm/pages/bench_vm_pages.c" "$moddir/" ||
		die "pages: cannot copy the module's sources into $moddir (the reason is above: a full disk?)"
	progress "$label" "pages: building bench_vm_pages.ko against $build_dir"
	# A bzImage-only build has neither Module.symvers nor scripts/module.lds
	# (make modules_prepare): name vmlinux.symvers and make module.lds in
	# the module's own directory, so the commit's build directory is only
	# read, never written.
	[ -f "$build_dir/vmlinux.symvers" ] ||
		die "pages: $build_dir/vmlinux.symvers is missing: the module cannot link"
	cp "$srctree/scripts/module.lds.S" "$moddir/" ||
		die "pages: cannot copy module.lds.S into $moddir (the reason is above)"
	rc=0
	{
		make -s -C "$build_dir" M="$moddir" module.lds &&
		make -s -C "$build_dir" M="$moddir" KBUILD_EXTRA_SYMBOLS="$build_dir/vmlinux.symvers" \
			ARCH_MODULE_LDS="$moddir/module.lds" modules
	} >"$results/pages-build.log" 2>&1 || rc=$?
	if [ -n "$restore" ]; then
		git -C "$srctree" checkout -q --detach "$restore" ||
			die "pages: git checkout $restore (back) in $srctree failed"
		restore=
	fi
	[ "${rc:-0}" = 0 ] || {
		keep_stage=1
		die "pages: building bench_vm_pages.ko against $build_dir failed: see $results/pages-build.log ($dest keeps the results of the run before)"
	}
	module=$moddir/bench_vm_pages.ko
}
