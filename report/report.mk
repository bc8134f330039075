# report/report.mk: the records of a run made readable: ci-report (the
# report, the claims of the changelogs, predictions, plots, the gate),
# ci-merge (several hosts' results in one table) and ci-verdict (whether
# a run's results pass the series, for make send).  Included by the
# top-level Makefile.
#
#   make report        the report again from the records in $(OUT)/ci
#                      (CI_QUICK=1: $(OUT)/quick; RESULTS=<set>: a
#                      committed set's, into out/report/<set>)
#   make merge RESULTS='dir1 dir2 file.jsonl'  several hosts: one table by CPU
#                      (ci-merge), $(OUT)/merge/merge.{txt,md,json}

# Every part of ci-report and ci-merge is its own object (report/report.h
# lists them), over lib/ (LIB_OBJ, the top-level Makefile, which compiles
# and links them).  claims-lint (series/series.mk) reads the claims as
# the report does.
REPORT_OBJ = $(call objs,report/gate.c report/out-text.c report/out-md.c report/out-json.c \
	report/format.c report/outputs.c report/functions.c report/predict.c report/builds.c \
	report/summary.c report/limits.c)

C_TOOLS += $(BIN)/ci-report $(BIN)/ci-merge $(BIN)/ci-verdict $(BIN)/ci-html
$(BIN)/ci-report: $(call objs,report/report-main.c report/claims.c report/plots.c report/out-kcidb.c) \
	$(REPORT_OBJ) $(LIB_OBJ)
$(BIN)/ci-merge: $(call objs,report/merge-main.c) $(REPORT_OBJ) $(LIB_OBJ)
# make html: a report as one page; Markdown by cmark-gfm (its GFM tables)
$(BIN)/ci-html: $(call objs,report/html-main.c report/outputs.c) $(LIB_OBJ)
$(BIN)/ci-html: LDLIBS += -lcmark-gfm-extensions -lcmark-gfm
# make send's question: do make ci's report and summary pass the series?
$(BIN)/ci-verdict: $(call objs,report/verdict.c lib/util.c)

.PHONY: report merge kcidb html report-check-c

# RESULTS=<set>: a committed set's report, into out/report/<set>
report: $(BIN)/ci-report
	$(Q)if [ -n "$$RESULTS" ]; then sh report/report-set.sh "$$RESULTS"; else sh ci/run.sh --report-only; fi

# RESULTS is a list: its words (and what a pattern of them names) are the
# arguments, as the shell splits a value, never reads it as code
merge: $(BIN)/ci-merge
	$(Q)sh report/merge.sh $$RESULTS

# the records of the run here, or of RESULTS=<set>, as KCIDB v5.3 JSON,
# validated (KCIDB_OUT=FILE, default $(OUT)/kcidb/kcidb.json)
kcidb: $(BIN)/ci-report
	$(Q)sh report/kcidb.sh $${RESULTS:+"$$RESULTS"}

# the report of the run here, or of RESULTS=<set>, as one self-contained
# HTML page (HTML_OUT=FILE, default report.html beside report.md; MERGE=DIR,
# RANGE_DIFF=FILE|none)
html: $(BIN)/ci-report $(BIN)/ci-html
	$(Q)sh report/html.sh $${RESULTS:+"$$RESULTS"}

report-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f report/*.c report/*.h

HELP += '  report         rebuild out/ci/report.{md,json} and plots from the records in out/ci'
HELP += '                 (CI_QUICK=1: those of make quick, in out/quick); RESULTS=<set>: a committed'
HELP += '                 set'"'"'s (results/<date-what>/<part>), into out/report/<set> (REPORT_OUT=)'
HELP += '                 CEILINGS=FILE|none: make costs'"'"' records for the claims'"'"' limits'
HELP += '  merge          RESULTS='"'"'dir file.jsonl ...'"'"': results of several hosts, one table by CPU'
HELP += '                 (out/merge; MERGE_COMMITS=FILE: the series'"'"' order, default this checkout'"'"'s)'
HELP += '  kcidb          the records of the run here (RESULTS=<set>: a committed set'"'"'s) as'
HELP += '                 KernelCI'"'"'s KCIDB v5.3 JSON, validated offline against its schema'
HELP += '                 (report/kcidb/), into out/kcidb/kcidb.json (KCIDB_OUT=FILE)'
HELP += '  html           the report of the run here (RESULTS=<set>: a committed set'"'"'s) as one'
HELP += '                 self-contained page, plots inline (report.html beside report.md;'
HELP += '                 HTML_OUT=FILE, MERGE=<make merge dir>, RANGE_DIFF=FILE|none)'
HELP += '  report-check-c checkpatch.pl --strict on the report C'
