/* nt_template: unguarded template copies; an out-of-line struct page copy */
struct page { unsigned long flags; };

void init(struct page *page, int n)
{
	struct page tmpl;
	int i;

	for (i = 0; i < n; i++)
		memcpy_nontemporal(page + i, &tmpl, sizeof(tmpl));
	__memcpy_flushcache(page, &tmpl, sizeof(struct page));
	memcpy_nontemporal_fence();
}

static inline void copy(struct page *page, struct page *tmpl)
{
	memcpy_nontemporal(page, tmpl, sizeof(*tmpl));
}

void init2(struct page *page, int n, bool use_template)
{
	struct page tmpl;
	int i;

	for (i = 0; i < n; i++) {
		if (use_template)
			copy(page + i, &tmpl);
		else
			page[i].flags = 0;
	}
	copy(page, &tmpl);
	memcpy_nontemporal_fence();
}

/* the copy two and three static levels down, called unguarded */
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

static void sections(struct page *page, struct page *tmpl, int n)
{
	dispatch(page, tmpl, n);
	cond_resched();
}

void init3(struct page *page, int n, bool use_template)
{
	struct page tmpl;

	if (use_template)
		page[0].flags = 1;
	dispatch(page, &tmpl, n);
	sections(page, &tmpl, n);
	memcpy_nontemporal_fence();
}
