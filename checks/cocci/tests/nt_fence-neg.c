/* nt_fence: fenced at return, on every path, by the caller of a helper or
 * of its static callers, three levels up; a read-back by the same CPU needs
 * no fence, and nothing is asked before cond_resched()
 */
struct page { unsigned long flags; };

void exported(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy_nontemporal(page + i, tmpl, sizeof(*tmpl));
		page[i].flags |= 1;
		if (i % 64 == 0) {
			memcpy_nontemporal_fence();
			cond_resched();
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

static void mid(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++)
		helper(page + i, tmpl);
}

void top(struct page *page, const struct page *tmpl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		mid(page, tmpl, n);
		if (i % 64 == 0) {
			memcpy_nontemporal_fence();
			cond_resched();
		}
	}
	memcpy_nontemporal_fence();
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

static void mid2(struct page *page, const struct page *tmpl, int n)
{
	mid(page, tmpl, n);
}

void top3(struct page *page, const struct page *tmpl, int n)
{
	mid2(page, tmpl, n);
	cond_resched();
	wmb();
}
