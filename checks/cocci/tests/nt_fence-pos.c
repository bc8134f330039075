/* nt_fence: unfenced at return, a static helper's caller unfenced, resched */
struct page { unsigned long flags; };

void exported(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++)
		memcpy_nontemporal(page + i, tmpl, sizeof(*tmpl));
}

static void helper(struct page *page, const struct page *tmpl)
{
	memcpy_flushcache(page, tmpl, sizeof(*tmpl));
}

void caller(struct page *page, const struct page *tmpl)
{
	helper(page, tmpl);
}

int early(struct page *page, const struct page *tmpl)
{
	memcpy_nontemporal(page, tmpl, sizeof(*tmpl));
	if (page->flags)
		return 1;
	memcpy_nontemporal_fence();
	return 0;
}

void resched(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy_nontemporal(page + i, tmpl, sizeof(*tmpl));
		cond_resched();
	}
	memcpy_nontemporal_fence();
}

static void mid(struct page *page, const struct page *tmpl)
{
	helper(page, tmpl);
}

void top(struct page *page, const struct page *tmpl)
{
	mid(page, tmpl);
}

void top_resched(struct page *page, const struct page *tmpl)
{
	helper(page, tmpl);
	cond_resched();
	wmb();
}
