/* nt_template: an unguarded template copy; an out-of-line struct page copy */
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
