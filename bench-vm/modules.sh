# bench-vm/modules.sh: the guest's kernel modules of bench-vm/run.sh,
# each built out of tree against the kernel's own build directory (the
# one that holds bzImage): its struct page layout and symbols are that
# commit's.  Sourced by run.sh; it reads run.sh's kernel, commit,
# results, dest and label.
#
#   pages_module    --pages: the struct page digest (bench-vm/pages)
#   hmm_module      --hmm: the kernel's own lib/test_hmm.c, as the commit
#                   has it, for a load of DEVICE_PRIVATE and
#                   DEVICE_COHERENT pgmaps (agent.c, hmm=1)
# Each appends its .ko to modules (initramfs.sh's list, a line each),
# and sets restore and srctree while the worktree is moved (run.sh's
# cleanup moves it back); a build that fails keeps its log (keep_stage)
# and dies.
# shellcheck disable=SC2154,SC2034 # run.sh's variables, named above

# ext_module WHAT NAME FILE...: NAME.ko from the FILEs, copied into
# $results/WHAT-module (its log: WHAT-build.log): a FILE "tree:PATH" is
# PATH of the kernel source as the commit has it, any other one of ours;
# without a Kbuild among them, "obj-m += NAME.o" is the Kbuild
ext_module() {
	em_what=$1 em_name=$2
	shift 2
	build_dir=$(cd "$(dirname "$kernel")/../../.." && pwd)
	[ -f "$build_dir/.config" ] && [ -f "$build_dir/Makefile" ] ||
		die "$em_what: $build_dir is not the kernel's build directory (no .config): the module needs it"
	grep -qx CONFIG_MODULES=y "$build_dir/.config" ||
		die "$em_what: $build_dir/.config lacks CONFIG_MODULES=y"
	srctree=$(cd "$build_dir/source" && pwd -P) ||
		die "$em_what: $build_dir/source (the kernel source of the build) is missing"
	# kbuild compiles the module with the headers of the source tree as it
	# is checked out now: they must be the commit's.  With
	# PAGES_CHECKOUT=1 (make bench-vm) the toolkit's worktree is moved to
	# the commit for the module build, as build.sh does, and moved back.
	restore=
	if [ -n "$commit" ] && git -C "$srctree" rev-parse -q --verify "$commit^{commit}" >/dev/null; then
		if ! git -C "$srctree" diff --quiet "$commit" -- include arch/x86/include lib; then
			[ "${PAGES_CHECKOUT:-}" = 1 ] ||
				die "$em_what: $srctree is not at $commit (its headers differ): check it out, or set PAGES_CHECKOUT=1"
			[ -z "$(git -C "$srctree" status --porcelain --untracked-files=no)" ] ||
				die "$em_what: $srctree has local changes: not checking out $commit there"
			restore=$(git -C "$srctree" rev-parse HEAD)
			git -C "$srctree" checkout -q --detach "$commit" ||
				die "$em_what: git checkout $commit in $srctree failed"
		fi
	else
		warn "$em_what: no commit id for $kernel: the module's headers are $srctree's as checked out"
	fi
	moddir=$results/$em_what-module
	rm -rf "$moddir"
	mkdir -p "$moddir" || die "$em_what: cannot create $moddir"
	for em_f; do
		case $em_f in tree:*) em_f=$srctree/${em_f#tree:} ;; esac
		cp "$em_f" "$moddir/" ||
			die "$em_what: cannot copy $em_f into $moddir (the reason is above: a full disk?)"
	done
	[ -f "$moddir/Kbuild" ] || echo "obj-m += $em_name.o" >"$moddir/Kbuild" ||
		die "$em_what: cannot write $moddir/Kbuild"
	progress "$label" "$em_what: building $em_name.ko against $build_dir"
	# A bzImage-only build has neither Module.symvers nor scripts/module.lds
	# (make modules_prepare): name vmlinux.symvers and make module.lds in
	# the module's own directory, so the commit's build directory is only
	# read, never written.
	[ -f "$build_dir/vmlinux.symvers" ] ||
		die "$em_what: $build_dir/vmlinux.symvers is missing: the module cannot link"
	cp "$srctree/scripts/module.lds.S" "$moddir/" ||
		die "$em_what: cannot copy module.lds.S into $moddir (the reason is above)"
	# a module is compiled as its kernel was: clang's (LLVM=1) or gcc's
	em_llvm=
	! grep -qx CONFIG_CC_IS_CLANG=y "$build_dir/.config" || em_llvm=LLVM=1
	rc=0
	# shellcheck disable=SC2086 # em_llvm: LLVM=1 or nothing
	{
		make -s -C "$build_dir" M="$moddir" $em_llvm module.lds &&
		make -s -C "$build_dir" M="$moddir" $em_llvm KBUILD_EXTRA_SYMBOLS="$build_dir/vmlinux.symvers" \
			ARCH_MODULE_LDS="$moddir/module.lds" modules
	} >"$results/$em_what-build.log" 2>&1 || rc=$?
	if [ -n "$restore" ]; then
		git -C "$srctree" checkout -q --detach "$restore" ||
			die "$em_what: git checkout $restore (back) in $srctree failed"
		restore=
	fi
	[ "${rc:-0}" = 0 ] || {
		keep_stage=1
		die "$em_what: building $em_name.ko against $build_dir failed: see $results/$em_what-build.log ($dest keeps the results of the run before)"
	}
	modules="$modules
$moddir/$em_name.ko"
}

pages_module() {
	ext_module pages bench_vm_pages "$TOP/bench-vm/pages/Kbuild" "$TOP/bench-vm/pages/bench_vm_pages.c"
}

# test_hmm's symbols (hmm_range_fault, migrate_vma_*) are there only with
# DEVICE_PRIVATE, which bench-vm/hmm.config turns on
hmm_module() {
	grep -qx CONFIG_DEVICE_PRIVATE=y "$(dirname "$kernel")/../../../.config" ||
		die "hmm: the kernel has no CONFIG_DEVICE_PRIVATE=y: build it with bench-vm/hmm.config (bench-vm/checked.sh hmm)"
	ext_module hmm test_hmm tree:lib/test_hmm.c tree:lib/test_hmm_uapi.h
}
