# ci/keys.sh: content keys, under which a step's results made for one
# commit id are reused for another of the same content (a changelog
# edit, a rebase that changed no file).  Sourced by ci/run.sh.  POSIX sh.
# shellcheck disable=SC2034,SC2154 # fn, inputs: step-run.sh's; line: lib.sh's line_of; key set for run_step

# content_key STEP COMMIT: sets key (none when the step has no content)
# from the inputs that inputs() read
content_key() {
	key=
	fn_of "$1" && ck_f=step_${fn}_content
	command -v "$ck_f" >/dev/null || return 0
	ck=$("$ck_f" "$2") || die "$1: what $(printf %.12s "$2") is made of cannot be read"
	key=$({ printf '%s\n' "$ck"; printf '%s\n' "$inputs" | sed "s/$2/COMMIT/g"; } | sha256sum)
	key=${key%% *}
}

# reuse_source STEP KEY COMMIT: the commit whose last good results of STEP
# were made with KEY (their stamp there, their key file KEY, not
# superseded); false when there is none
reuse_source() {
	[ -n "$2" ] && [ -f "$CI_OUT/.keys/$1/$2" ] || return 1
	line_of "$CI_OUT/.keys/$1/$2" || return 1
	rsrc=$line
	[ "$rsrc" != "$3" ] && [ -f "$CI_OUT/$rsrc/$1.stamp" ] &&
		line_of "$CI_OUT/$rsrc/$1/key" && [ "$line" = "$2" ] &&
		[ ! -e "$CI_OUT/$rsrc/.$1.superseded" ] || return 1
	echo "$rsrc"
}

# reuse_results STEP FROM COMMIT DIR: FROM's results of STEP as COMMIT's,
# into DIR (which holds COMMIT's inputs and key already)
reuse_results() {
	ru_src=$CI_OUT/$2/$1
	echo "the same content as $2 (key $(cat "$4/key")): its results, reused, nothing run"
	(cd "$ru_src" && find . -type f ! -name inputs ! -name key ! -name rc ! -name seconds \
		! -name log ! -name '*.jsonl' ! -name reused-from -print) | while read -r ru_f; do
		mkdir -p "$4/$(dirname "$ru_f")" && cp -p "$ru_src/$ru_f" "$4/$ru_f" || exit 1
	done || { echo "cannot copy $ru_src into $4 (disk full?)"; return 1; }
	(cd "$ru_src" && find . -type f -name '*.jsonl' -print) | while read -r ru_f; do
		mkdir -p "$4/$(dirname "$ru_f")" &&
			"$BIN/record-reuse" --from "$2" --commit "$3" --to "$4/$ru_f" "$ru_src/$ru_f" ||
			exit 1
	done || { echo "the records of $ru_src cannot be reused (above)"; return 1; }
	cat "$ru_src/reused-from" 2>/dev/null >"$4/reused-from" || echo "$2" >"$4/reused-from"
}

# key_write STEP COMMIT KEY: the key's results are now COMMIT's (the
# commit first made them, when COMMIT reused them)
key_write() {
	[ -n "$3" ] || return 0
	kw_c=$2
	! line_of "$CI_OUT/$2/$1/reused-from" || kw_c=$line
	# the first commit's results may be gone or others since
	line_of "$CI_OUT/$kw_c/$1/key" && [ "$line" = "$3" ] && [ -f "$CI_OUT/$kw_c/$1.stamp" ] ||
		kw_c=$2
	mkdir -p "$CI_OUT/.keys/$1" && printf '%s\n' "$kw_c" | write_file "$CI_OUT/.keys/$1/$3" ||
		die "$1: cannot write $CI_OUT/.keys/$1/$3 (disk full?)"
}
