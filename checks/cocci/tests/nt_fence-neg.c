/* nt_fence: fenced at return, on every path, by the caller of a helper */
struct page { unsigned long flags; };

void exported(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy_nontemporal(page + i, tmpl, sizeof(*tmpl));
		if (i == 1) {
			memcpy_nontemporal_fence();
			page->flags |= 1;
		}
	}
	memcpy_nontemporal_fence();
}

static void helper(struct page *page, const struct page *tmpl)
{
	memcpy_flushcache(page, tmpl, sizeof(*tmpl));
}

void caller(struct page *page, const struct page *tmpl)
{
	helper(page, tmpl);
	wmb();
}

int early(struct page *page, const struct page *tmpl)
{
	memcpy_nontemporal(page, tmpl, sizeof(*tmpl));
	pmem_wmb();
	if (page->flags)
		return 1;
	return 0;
}
