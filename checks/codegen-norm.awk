# checks/codegen-norm.awk: one object's machine code, normalised, for the
# codegen check (checks/codegen.sh), which compares two builds of the same
# source, the guest's configuration and Debian's.
#
# Input: `objdump -d -r -w --no-show-raw-insn OBJ`.  Variables (-v):
#   roots   the functions to start from, comma separated, or "*" for every
#           function and section of the object
# Output, a line each, tab separated:
#   F  FUNC  N  INSN   instruction N (0-based) of a function reached from
#                      the roots through calls and jumps, with every
#                      address taken out: a branch target is "-> .+0xOFF"
#                      inside the function, "-> NAME" outside it; a
#                      relocation keeps its type and symbol, and an offset
#                      into a section (.rodata+0x40) becomes "+X", since
#                      other code of the object moves it
#   O  FUNC  N  OFF    the offset in FUNC of instruction N (for messages)
#   X  FUNC  SYM       FUNC calls or jumps to SYM, which the object does
#                      not define (another object's, or the kernel's)
#   M  ROOT            a root the object does not define
# Functions are listed in the order they are reached.  Suffixes that the
# compiler numbers per object (.constprop.0, .isra.0, .part.0) lose their
# number: another configuration may number them otherwise.

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

# the suffix of a renamed clone without its number: .constprop.0 -> .constprop
function unnumber(name,    out, m) {
	out = ""
	while (match(name, /\.(constprop|isra|part|cold|lto_priv)\.[0-9]+/)) {
		m = substr(name, RSTART, RLENGTH)
		sub(/\.[0-9]+$/, "", m)
		out = out substr(name, 1, RSTART - 1) m
		name = substr(name, RSTART + RLENGTH)
	}
	return out name
}

/^Disassembly of section / {
	sec = $4
	sub(/:$/, "", sec)
	next
}

/^[0-9a-f]+ <.*>:$/ {
	fn = $2
	sub(/^</, "", fn)
	sub(/>:$/, "", fn)
	nf++
	fname[nf] = fn
	fsec[fn] = sec
	fstart[fn] = hex($1)
	at[sec, hex($1)] = fn
	ninsn[fn] = 0
	next
}

/^ *[0-9a-f]+:\t/ && fn != "" {
	n = split($0, p, "\t")
	a = p[1]
	sub(/^ */, "", a)
	sub(/:$/, "", a)
	i = ninsn[fn]++
	iaddr[fn, i] = hex(a)
	itext[fn, i] = p[2]
	irel[fn, i] = ""
	if (n >= 4 && p[3] ~ /: R_X86_64_/) {
		t = p[3]
		sub(/^[0-9a-f]+: /, "", t)
		irel[fn, i] = t "\t" p[4]
	}
	next
}

# the function FUNC's instruction I, its target resolved; sets tgt to
# the function it branches to in this object, "" when none
function resolve(f, i,    t, r, rt, rs, base, add, ta, op, m) {
	tgt = ""
	t = itext[f, i]
	gsub(/[ ]+/, " ", t)
	sub(/ *#.*$/, "", t)
	op = t
	sub(/ .*$/, "", op)
	r = irel[f, i]
	if (r != "") {
		split(r, m, "\t")
		rt = m[1]
		rs = m[2]
		base = rs
		add = 0
		if (match(rs, /[+-]0x[0-9a-f]+$/)) {
			base = substr(rs, 1, RSTART - 1)
			add = hex(substr(rs, RSTART + 1))
			if (substr(rs, RSTART, 1) == "-")
				add = -add
		}
		# a branch: its operand is the unrelocated field, the target
		# is the relocation's
		if (op ~ /^(call|jmp|j[a-z]+)$/) {
			sub(/ [0-9a-f]+ <[^>]*>$/, "", t)
			if (base ~ /^\./ && (rt == "R_X86_64_PC32" || rt == "R_X86_64_PLT32") &&
			    ((base, add + 4) in at)) {
				tgt = at[base, add + 4]
				return t " -> " unnumber(tgt)
			}
			if (base !~ /^\./) {
				if (base in fsec)
					tgt = base
				else
					ext[f, base] = 1
			}
		}
		if (base ~ /^\./)
			rs = base "+X"
		return t " " rt " " unnumber(rs)
	}
	if (op ~ /^(call|jmp|j[a-z]+|loop[a-z]*)$/ && match(t, / [0-9a-f]+ <[^>]*>$/)) {
		ta = substr(t, RSTART + 1)
		sub(/ .*$/, "", ta)
		ta = hex(ta)
		t = substr(t, 1, RSTART - 1)
		if (ta >= fstart[f] && ta <= iaddr[f, ninsn[f] - 1])
			return t sprintf(" -> .+0x%x", ta - fstart[f])
		if ((fsec[f], ta) in at) {
			tgt = at[fsec[f], ta]
			return t " -> " unnumber(tgt)
		}
		return t " -> ?"
	}
	return unnumber(t)
}

END {
	nq = 0
	if (roots == "*") {
		for (k = 1; k <= nf; k++)
			queue[++nq] = fname[k]
	} else {
		nr = split(roots, rl, ",")
		for (k = 1; k <= nr; k++) {
			if (rl[k] in fsec)
				queue[++nq] = rl[k]
			else
				print "M\t" rl[k]
		}
	}
	for (q = 1; q <= nq; q++) {
		f = queue[q]
		if (f in done)
			continue
		done[f] = 1
		for (i = 0; i < ninsn[f]; i++) {
			line = resolve(f, i)
			print "F\t" unnumber(f) "\t" i "\t" line
			printf "O\t%s\t%d\t0x%x\n", unnumber(f), i, iaddr[f, i] - fstart[f]
			if (tgt != "" && !(tgt in done))
				queue[++nq] = tgt
		}
	}
	for (k in ext) {
		split(k, m, SUBSEP)
		if (m[1] in done)
			print "X\t" unnumber(m[1]) "\t" m[2]
	}
}
