/* nt_template: guarded template copies, direct or in a static helper */
struct page { unsigned long flags; };

static __always_inline void copy(struct page *page, struct page *tmpl,
				 bool stream)
{
	if (stream)
		memcpy_nontemporal(page, tmpl, sizeof(*tmpl));
	else
		memcpy(page, tmpl, sizeof(*tmpl));
}

void init(struct page *page, int n, char *buf, const char *src,
	  bool use_template)
{
	struct page tmpl;
	int i;

	for (i = 0; i < n; i++) {
		if (use_template && i) {
			copy(page + i, &tmpl, true);
		} else {
			page[i].flags = 0;
			if (use_template)
				memcpy(&tmpl, page + i, sizeof(tmpl));
		}
	}
	if (use_template) {
		memcpy_nontemporal(page, &tmpl, sizeof(tmpl));
	}
	memcpy_nontemporal(buf, src, 64);
	__memcpy_flushcache(buf, src, 64);
	memcpy_nontemporal_fence();
}

/* the copy two and three static levels down, every call guarded */
static inline void copy2(struct page *page, struct page *tmpl)
{
	memcpy_nontemporal(page, tmpl, sizeof(*tmpl));
}

static void dispatch(struct page *page, struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++)
		copy2(page + i, tmpl);
}

static void sections(struct page *page, struct page *tmpl, int n,
		     bool use_template)
{
	if (use_template && n > 2)
		dispatch(page, tmpl, n);
	cond_resched();
}

void init3(struct page *page, int n, bool use_template)
{
	struct page tmpl;

	if (use_template && n == 1) {
		dispatch(page, &tmpl, n);
		goto done;
	}
	sections(page, &tmpl, n, use_template);
done:
	memcpy_nontemporal_fence();
}
