# series/series.mk: the maintainer's side of the series: the pinned
# kernel, the patches applied onto it, and the mails back out (export,
# range-diff, repin, trailers, send), with the two mail readers
# (series-check, trailers-collect) and claims-lint, which checks every
# figure of the mails against its source.  Included by the top-level
# Makefile after report/report.mk, whose objects claims-lint links.

C_TOOLS += $(BIN)/series-check $(BIN)/trailers-collect $(BIN)/claims-lint
$(BIN)/series-check $(BIN)/trailers-collect: $(BIN)/%: $(call objs,series/%.c lib/mbox.c)
# the claims of the mails read as the report reads them
# (REPORT_OBJ: report/report.mk, included before this file)
$(BIN)/claims-lint: $(call objs,series/claims-lint.c report/claims.c) $(REPORT_OBJ) $(LIB_OBJ)

.PHONY: kernel-tree apply export range-diff repin trailers send claims-lint series-check-c

kernel-tree: deps
	$(Q)sh series/kernel-tree.sh

apply: tools
	$(Q)sh series/apply.sh

export: $(BIN)/claims-lint
	$(Q)sh series/export.sh

range-diff: tools
	$(Q)sh series/range-diff.sh

repin: tools
	$(Q)sh series/repin.sh

trailers: tools
	$(Q)sh series/trailers.sh

send: tools
	$(Q)sh series/send.sh

# every figure of the mails from its source (patches/figures): what make
# export and make send check
claims-lint: $(BIN)/claims-lint
	$(Q)"$$BIN/claims-lint"

series-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f series/*.c

HELP += '  kernel-tree    import/verify the pinned kernel offline, create the worktree out/tree'
HELP += '  apply          b4 am + git am patches/ onto the base: refs/x86-copy-series/series'
HELP += '  export         regenerate patches/ from the series commits (VERSION=N: [PATCH vN];'
HELP += '                 PATCHES_OUT=<dir>: into that directory, patches/ untouched)'
HELP += '  range-diff     the series against its previous version (PREV=<toolkit rev or tag>, or PREV=v2)'
HELP += '  repin          move the series to TO=<rev> or TO_DEBIAN=<version>, status per patch'
HELP += '  trailers       fold Reviewed/Tested/Acked/Reported/Suggested-by from REPLIES=<mbox> into patches/'
HELP += '  send           git send-email, To/Cc from get_maintainer.pl: dry run unless SEND=1'
HELP += '  claims-lint    every figure of the mails from its source in patches/figures, as'
HELP += '                 computed (make export and make send refuse the series otherwise)'
HELP += '  series-check-c checkpatch.pl --strict on the series C'
