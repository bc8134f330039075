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
