/* nt_fence: unfenced at return, a static helper's callers unfenced, one to
 * three levels up */
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

static void mid(struct page *page, const struct page *tmpl)
{
	helper(page, tmpl);
}

void top(struct page *page, const struct page *tmpl)
{
	mid(page, tmpl);
}

static void mid2(struct page *page, const struct page *tmpl)
{
	mid(page, tmpl);
}

void top3(struct page *page, const struct page *tmpl)
{
	mid2(page, tmpl);
}
