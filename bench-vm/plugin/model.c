// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the store and cache model of model.h.
 *
 * Default geometry, fixed so that every host gives the same figures:
 * L1d 48 KiB, 12 ways per vCPU and a shared LLC of 16 MiB, 16 ways, 64-byte
 * lines (an Ice Lake server core's L1d, the CPU of the changelogs; its
 * LLC slice per core is smaller, but a bind writes hundreds of MiB of
 * struct pages, far beyond any LLC).  Weights of est_cycles: cachegrind's
 * old estimate (Ir + 10 L1m + 100 LLm), plus 25 per line written to
 * memory, by a write-back or by streaming stores alike (the same traffic
 * whichever path it takes: what write-allocate adds is the read of the
 * line, the LLC store miss), plus 30 per fence.  These are model choices,
 * not measurements of any CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

const char *const model_event_names[NR_EVENTS] = {
#define MODEL_EVENT(name, desc) #name,
#include "events.def"
#undef MODEL_EVENT
};

const struct model_params model_defaults = {
	.l1d_size = 48 << 10,
	.l1d_ways = 12,
	.llc_size = 16 << 20,
	.llc_ways = 16,
	.top = 20,
	.w_l1 = 10,
	.w_llc = 100,
	.w_mem = 25,
	.w_fence = 30,
};

int model_init(struct model *m, const struct model_params *p, unsigned int nr_vcpus,
	       size_t nr_funcs, const char **why)
{
	static char msg[256];
	const char *level = "L1d (l1d_size, l1d_ways)";
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->p = *p;
	m->nr_vcpus = nr_vcpus ? nr_vcpus : 1;
	m->nr_funcs = nr_funcs;
	m->l1d = calloc(m->nr_vcpus, sizeof(*m->l1d));
	m->ev = calloc(nr_funcs, sizeof(*m->ev));
	m->insns = calloc(nr_funcs, sizeof(*m->insns));
	m->insns_open = calloc(nr_funcs, sizeof(*m->insns_open));
	if (!m->l1d || !m->ev || !m->insns || !m->insns_open) {
		*why = "out of memory";
		goto fail;
	}
	for (i = 0; i < m->nr_vcpus; i++)
		if (cache_init(&m->l1d[i], p->l1d_size, p->l1d_ways, MODEL_LINE, why))
			goto bad_cache;
	level = "LLC (llc_size, llc_ways)";
	if (cache_init(&m->llc, p->llc_size, p->llc_ways, MODEL_LINE, why))
		goto bad_cache;
	return 0;
bad_cache:
	snprintf(msg, sizeof(msg), "%s: %s", level, *why);
	*why = msg;
fail:
	model_free(m);
	return -1;
}

void model_free(struct model *m)
{
	unsigned int i;

	for (i = 0; m->l1d && i < m->nr_vcpus; i++)
		cache_free(&m->l1d[i]);
	cache_free(&m->llc);
	free(m->l1d);
	free(m->ev);
	free(m->insns);
	free(m->insns_open);
	memset(m, 0, sizeof(*m));
}

/*
 * Every window starts with empty caches: its figures do not depend on
 * the windows before it, nor on what ran between them.
 */
void model_open(struct model *m)
{
	unsigned int i;

	if (m->active)
		m->bad_markers++;
	m->seq++;
	memset(m->ev, 0, m->nr_funcs * sizeof(*m->ev));
	memcpy(m->insns_open, m->insns, m->nr_funcs * sizeof(*m->insns));
	for (i = 0; i < m->nr_vcpus; i++)
		cache_reset(&m->l1d[i]);
	cache_reset(&m->llc);
	memset(m->inflight, 0, sizeof(m->inflight));
	m->rep_next_load = 0;
	m->rep_next_store = 0;
	m->rep_load_jumped = 0;
	m->active = 1;
}

static void stream_line(struct model *m, struct cache *l1, uint64_t *ev, uint64_t line)
{
	uint64_t e1 = cache_evict(l1, line), e2 = cache_evict(&m->llc, line);

	/* a dirty copy is written back before the streamed data replaces it */
	if (cache_entry_dirty(e1) || cache_entry_dirty(e2))
		ev[EV_llc_writebacks]++;
	m->inflight[line & (MODEL_INFLIGHT - 1)] = line + 1;
}

/* a miss on a line still in flight from a streaming store waits for it */
static void reread(struct model *m, uint64_t *ev, uint64_t line)
{
	uint64_t *slot = &m->inflight[line & (MODEL_INFLIGHT - 1)];

	if (*slot != line + 1)
		return;
	*slot = 0;
	ev[EV_nt_rereads]++;
}

static void cached_line(struct model *m, struct cache *l1, uint64_t *ev, uint64_t line,
			int store)
{
	uint64_t victim;

	if (cache_access(l1, line, store, &victim))
		return;
	ev[store ? EV_l1d_store_misses : EV_l1d_load_misses]++;
	/* L1d writes back to the LLC; a line the LLC no longer holds goes to memory */
	if (cache_entry_dirty(victim) && !cache_mark_dirty(&m->llc, cache_entry_line(victim)))
		ev[EV_llc_writebacks]++;
	if (cache_access(&m->llc, line, 0, &victim))
		return;
	ev[store ? EV_llc_store_misses : EV_llc_load_misses]++;
	reread(m, ev, line);
	if (cache_entry_dirty(victim))
		ev[EV_llc_writebacks]++;
}

void model_access(struct model *m, unsigned int vcpu, size_t func, enum insn_class cls,
		  uint64_t vaddr, unsigned int size, int store)
{
	uint64_t *ev = m->ev[func], line, last;
	struct cache *l1;

	if (!m->active)
		return;
	l1 = &m->l1d[vcpu < m->nr_vcpus ? vcpu : 0];
	line = vaddr >> MODEL_LINE_SHIFT;
	last = (vaddr + (size ? size - 1 : 0)) >> MODEL_LINE_SHIFT;
	if (cls == INSN_NT && store) {
		ev[EV_nt_bytes] += size;
		for (; line <= last; line++)
			stream_line(m, l1, ev, line);
		return;
	}
	if (store) {
		ev[EV_stores]++;
		if (cls == INSN_REP_MOVS || cls == INSN_REP_STOS) {
			ev[EV_rep_iters]++;
			ev[EV_rep_bytes] += size;
			/* a MOVS iteration loads, then stores (QEMU's order) */
			if (vaddr != m->rep_next_store ||
			    (cls == INSN_REP_MOVS && m->rep_load_jumped))
				ev[EV_rep_starts]++;
			m->rep_next_store = vaddr + size;
			m->rep_load_jumped = 0;
		}
	} else {
		ev[EV_loads]++;
		if (cls == INSN_REP_MOVS) {
			m->rep_load_jumped = vaddr != m->rep_next_load;
			m->rep_next_load = vaddr + size;
		}
	}
	for (; line <= last; line++)
		cached_line(m, l1, ev, line, store);
}

void model_exec(struct model *m, size_t func, enum insn_class cls)
{
	if (!m->active)
		return;
	switch (cls) {
	case INSN_NT:
		m->ev[func][EV_nt_stores]++;
		break;
	case INSN_SFENCE:
		m->ev[func][EV_sfences]++;
		break;
	case INSN_MFENCE:
		m->ev[func][EV_mfences]++;
		break;
	default:
		break;
	}
}

uint64_t model_est_cycles(const struct model_params *p, const uint64_t ev[NR_EVENTS])
{
	return ev[EV_insns] +
	       p->w_l1 * (ev[EV_l1d_load_misses] + ev[EV_l1d_store_misses]) +
	       p->w_llc * (ev[EV_llc_load_misses] + ev[EV_llc_store_misses]) +
	       p->w_mem * (ev[EV_llc_writebacks] + ev[EV_nt_bytes] / MODEL_LINE) +
	       p->w_fence * (ev[EV_sfences] + ev[EV_mfences]);
}

/* function @f's events this window, its instructions filled in */
static void func_events(const struct model *m, size_t f, uint64_t ev[NR_EVENTS])
{
	memcpy(ev, m->ev[f], sizeof(m->ev[f]));
	ev[EV_insns] = m->insns[f] - m->insns_open[f];
}

void model_totals(const struct model *m, uint64_t tot[NR_EVENTS + 1])
{
	uint64_t ev[NR_EVENTS];
	size_t f;
	int e;

	memset(tot, 0, (NR_EVENTS + 1) * sizeof(*tot));
	for (f = 0; f < m->nr_funcs; f++) {
		func_events(m, f, ev);
		for (e = 0; e < NR_EVENTS; e++)
			tot[e] += ev[e];
	}
	tot[NR_EVENTS] = model_est_cycles(&m->p, tot);
}

struct ranked {
	size_t func;
	uint64_t est;
};

static int by_est(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->est != y->est)
		return x->est < y->est ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int write_events(FILE *f, const uint64_t ev[NR_EVENTS], uint64_t est)
{
	int e, r = 0;

	for (e = 0; e < NR_EVENTS && r >= 0; e++)
		r = fprintf(f, "\t%s=%llu", model_event_names[e], (unsigned long long)ev[e]);
	if (r >= 0)
		r = fprintf(f, "\test_cycles=%llu\n", (unsigned long long)est);
	return r;
}

/*
 * Dirty lines in any cache: the write-backs a window owes.  A line dirty
 * in an L1d and in the LLC (L1d is not inclusive) is one write-back, as
 * the L1d's eviction only marks the LLC's copy.
 */
static uint64_t owed_writebacks(const struct model *m)
{
	uint64_t n = 0, e;
	size_t i, j;

	for (i = 0; i < (size_t)m->llc.sets * m->llc.ways; i++)
		n += cache_entry_dirty(m->llc.tags[i]);
	for (j = 0; j < m->nr_vcpus; j++) {
		const struct cache *l1 = &m->l1d[j];

		for (i = 0; i < (size_t)l1->sets * l1->ways; i++) {
			e = l1->tags[i];
			if (e && cache_entry_dirty(e) &&
			    !cache_entry_dirty(cache_peek(&m->llc, cache_entry_line(e))))
				n++;
		}
	}
	return n;
}

int model_close(struct model *m, FILE *f, const char *(*name)(size_t func, void *arg),
		void *arg)
{
	uint64_t tot[NR_EVENTS + 1], ev[NR_EVENTS];
	struct ranked *r;
	size_t i, n = 0;
	int ret;

	if (!m->active) {
		m->bad_markers++;
		return 0;
	}
	model_totals(m, tot);
	tot[EV_owed_writebacks] = owed_writebacks(m);
	m->active = 0;
	ret = fprintf(f, "window\tseq=%u", m->seq);
	if (ret >= 0)
		ret = write_events(f, tot, tot[NR_EVENTS]);
	r = malloc(m->nr_funcs * sizeof(*r));
	if (!r)
		return -1;
	for (i = 0; i < m->nr_funcs; i++) {
		func_events(m, i, ev);
		r[n].func = i;
		r[n].est = model_est_cycles(&m->p, ev);
		if (r[n].est)
			n++;
	}
	qsort(r, n, sizeof(*r), by_est);
	for (i = 0; i < n && i < m->p.top && ret >= 0; i++) {
		func_events(m, r[i].func, ev);
		ret = fprintf(f, "func\tseq=%u\trank=%zu\tname=%s", m->seq, i + 1,
			      name(r[i].func, arg));
		if (ret >= 0)
			ret = write_events(f, ev, r[i].est);
	}
	free(r);
	if (ret >= 0 && fflush(f))
		ret = -1;
	return ret;
}

int model_write_params(const struct model *m, FILE *f)
{
	const struct model_params *p = &m->p;

	return fprintf(f,
		       "model\tname=cache\tl1d_size=%llu\tl1d_ways=%u\tllc_size=%llu\tllc_ways=%u\tline=%u\tvcpus=%u\ttop=%u\tw_l1=%llu\tw_llc=%llu\tw_mem=%llu\tw_fence=%llu\tfunctions=%zu\n",
		       (unsigned long long)p->l1d_size, p->l1d_ways,
		       (unsigned long long)p->llc_size, p->llc_ways, MODEL_LINE, m->nr_vcpus,
		       p->top, (unsigned long long)p->w_l1, (unsigned long long)p->w_llc,
		       (unsigned long long)p->w_mem, (unsigned long long)p->w_fence,
		       m->nr_funcs);
}
