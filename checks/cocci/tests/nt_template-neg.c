/* nt_template: guarded template copies, with and without else */
struct page { unsigned long flags; };

void init(struct page *page, int n, char *buf, const char *src)
{
	struct page tmpl;
	int i;

	for (i = 0; i < n; i++) {
		if (ZONE_DEVICE_PAGE_TEMPLATE) {
			memcpy_nontemporal(page + i, &tmpl, sizeof(tmpl));
		} else {
			page[i].flags = 0;
		}
	}
	if (ZONE_DEVICE_PAGE_TEMPLATE) {
		memcpy_nontemporal(page, &tmpl, sizeof(tmpl));
	}
	memcpy_nontemporal(buf, src, 64);
	__memcpy_flushcache(buf, src, 64);
	memcpy_nontemporal_fence();
}
