// SPDX-License-Identifier: GPL-2.0
/*
 * bench_vm_pages.c - a digest of the struct pages of a ZONE_DEVICE pfn
 * range, so that the struct pages a kernel initialises when nd_pmem or
 * dax_pmem binds can be compared between kernels (base vs series).
 *
 *   insmod bench_vm_pages.ko start_pfn=N nr_pages=M
 *
 * Every struct page is read as words; words that legitimately differ
 * between boots are normalized: a pointer to a struct page becomes where
 * it points relative to the page itself (self, head-before, after; bit 0,
 * PageTail's, kept), the range's own dev_pagemap becomes "pgmap", any
 * other kernel pointer "ptr".  Pages with equal normalized words form a
 * class; the module prints, through printk (the agent reads /dev/kmsg):
 *   bench_vm_pages: field W <names of the struct page fields in word W>
 *   bench_vm_pages: class I first_pfn=P count=N w0=... w1=...
 *   bench_vm_pages: pageblock flags=F first_pfn=P count=N
 *   bench_vm_pages: range start_pfn=S nr_pages=M words=W classes=C seq=H
 *                   pageblocks=B pb_seq=H
 * seq hashes the class of every page in pfn order (FNV-1a), so two equal
 * class tables with different seq still show a difference.  The pageblock
 * lines count the pageblocks of the range (from the one holding S) by
 * their flags (migratetype and skip bits), and pb_seq hashes those in pfn
 * order: memmap_init_zone_device() sets the migratetypes, and a kernel that
 * left some unset shows here.  The module stays loaded; the agent removes
 * it (delete_module) before the next use.
 */
#include <linux/kernel.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <linux/slab.h>

static unsigned long start_pfn;
module_param(start_pfn, ulong, 0444);
MODULE_PARM_DESC(start_pfn, "first pfn of the range");
static unsigned long nr_pages;
module_param(nr_pages, ulong, 0444);
MODULE_PARM_DESC(nr_pages, "number of pages in the range");

#define WORDS (sizeof(struct page) / sizeof(unsigned long))
#define MAX_CLASSES 64

/* The kind of a normalized word; the value only matters for RAW. */
enum word_kind { RAW, PAGE_SELF, PAGE_BEFORE, PAGE_AFTER, PGMAP, PTR };
static const char * const kind_names[] = {
	[RAW] = "", [PAGE_SELF] = "page-self", [PAGE_BEFORE] = "page-before",
	[PAGE_AFTER] = "page-after", [PGMAP] = "pgmap", [PTR] = "ptr",
};

struct nword {
	enum word_kind kind;
	unsigned long val;	/* RAW: the word; PAGE_*: bit 0 */
};

struct page_class {
	struct nword w[WORDS];
	unsigned long first_pfn, count;
};

static const struct {
	const char *name;
	size_t offset;
} fields[] = {
	{ "flags", offsetof(struct page, flags) },
	{ "lru", offsetof(struct page, lru) },
	{ "compound_head", offsetof(struct page, compound_head) },
	{ "pgmap", offsetof(struct page, pgmap) },
	{ "zone_device_data", offsetof(struct page, zone_device_data) },
	{ "mapping", offsetof(struct page, mapping) },
	{ "index", offsetof(struct page, index) },
	{ "private", offsetof(struct page, private) },
	{ "_mapcount", offsetof(struct page, _mapcount) },
	{ "_refcount", offsetof(struct page, _refcount) },
};

static void normalize(unsigned long pfn, const unsigned long *raw,
		      const struct dev_pagemap *pgmap, struct nword *w)
{
	/* the struct pages of every possible pfn (x86-64: 46 or 52 bits) */
	unsigned long vmemmap_end = (unsigned long)vmemmap +
		(1UL << (MAX_PHYSMEM_BITS - PAGE_SHIFT)) * sizeof(struct page);
	size_t i;

	/*
	 * the padding after each kind too: classes are told apart by
	 * memcmp() of whole words (a KMSAN boot found it uninitialised)
	 */
	memset(w, 0, WORDS * sizeof(*w));
	for (i = 0; i < WORDS; i++) {
		unsigned long v = raw[i], p = v & ~1UL;

		if (p >= (unsigned long)vmemmap && p < vmemmap_end &&
		    !((p - (unsigned long)vmemmap) % sizeof(struct page))) {
			unsigned long target = page_to_pfn((struct page *)p);

			w[i].kind = target == pfn ? PAGE_SELF :
				    target < pfn ? PAGE_BEFORE : PAGE_AFTER;
			w[i].val = v & 1;
		} else if (pgmap && v == (unsigned long)pgmap) {
			w[i].kind = PGMAP;
		} else if (v >= PAGE_OFFSET) {
			w[i].kind = PTR;
		} else {
			w[i].kind = RAW;
			w[i].val = v;
		}
	}
}

/*
 * The pageblock flags of @pfn: what get_pfnblock_flags_mask() and
 * pfn_to_bitidx() of mm/page_alloc.c read for SPARSEMEM (ZONE_DEVICE
 * depends on SPARSEMEM_VMEMMAP), which a module cannot call.
 */
static unsigned long pageblock_flags(unsigned long pfn)
{
	unsigned long *bitmap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) *
			       NR_PAGEBLOCK_BITS;

	return (READ_ONCE(bitmap[bitidx / BITS_PER_LONG]) >> (bitidx % BITS_PER_LONG)) &
	       ((1UL << NR_PAGEBLOCK_BITS) - 1);
}

static void print_words(char *buf, size_t size, const struct nword *w)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < WORDS && n < size; i++) {
		if (w[i].kind == RAW)
			n += scnprintf(buf + n, size - n, " w%zu=%#lx", i, w[i].val);
		else
			n += scnprintf(buf + n, size - n, " w%zu=%s%s", i,
				       kind_names[w[i].kind], w[i].val ? "|1" : "");
	}
}

static int __init bench_vm_pages_init(void)
{
	struct {
		unsigned long first_pfn, count;
	} pb[1 << NR_PAGEBLOCK_BITS] = { };
	struct page_class *classes;
	struct dev_pagemap *pgmap;
	unsigned long pfn, raw[WORDS], f, nr_pb = 0;
	struct nword w[WORDS];
	u64 seq = 0xcbf29ce484222325ULL;	/* FNV-1a offset basis */
	u64 pb_seq = 0xcbf29ce484222325ULL;
	char line[512];
	size_t i, nr = 0, c;
	int ret = 0;

	if (!nr_pages)
		return -EINVAL;
	pgmap = get_dev_pagemap(start_pfn, NULL);
	if (!pgmap) {
		pr_err("bench_vm_pages: pfn %#lx is not ZONE_DEVICE memory\n", start_pfn);
		return -ENXIO;
	}
	classes = kcalloc(MAX_CLASSES, sizeof(*classes), GFP_KERNEL);
	if (!classes) {
		put_dev_pagemap(pgmap);
		return -ENOMEM;
	}
	for (i = 0; i < WORDS; i++) {
		size_t f, n = 0;

		line[0] = '\0';
		for (f = 0; f < ARRAY_SIZE(fields); f++)
			if (fields[f].offset / sizeof(unsigned long) == i)
				n += scnprintf(line + n, sizeof(line) - n, " %s", fields[f].name);
		pr_info("bench_vm_pages: field %zu%s\n", i, line);
	}
	for (pfn = start_pfn; pfn < start_pfn + nr_pages; pfn++) {
		memcpy(raw, pfn_to_page(pfn), sizeof(raw));
		normalize(pfn, raw, pgmap, w);
		for (c = 0; c < nr; c++)
			if (!memcmp(classes[c].w, w, sizeof(w)))
				break;
		if (c == nr) {
			if (nr == MAX_CLASSES) {
				pr_err("bench_vm_pages: more than %d classes at pfn %#lx\n",
				       MAX_CLASSES, pfn);
				ret = -E2BIG;
				goto out;
			}
			memcpy(classes[c].w, w, sizeof(w));
			classes[c].first_pfn = pfn;
			nr++;
		}
		classes[c].count++;
		seq = (seq ^ c) * 0x100000001b3ULL;	/* FNV-1a prime */
		cond_resched();
	}
	for (c = 0; c < nr; c++) {
		print_words(line, sizeof(line), classes[c].w);
		pr_info("bench_vm_pages: class %zu first_pfn=%#lx count=%lu%s\n", c,
			classes[c].first_pfn, classes[c].count, line);
	}
	for (pfn = ALIGN_DOWN(start_pfn, pageblock_nr_pages); pfn < start_pfn + nr_pages;
	     pfn += pageblock_nr_pages) {
		f = pageblock_flags(pfn);
		if (!pb[f].count)
			pb[f].first_pfn = pfn;
		pb[f].count++;
		nr_pb++;
		pb_seq = (pb_seq ^ f) * 0x100000001b3ULL;
	}
	for (f = 0; f < ARRAY_SIZE(pb); f++)
		if (pb[f].count)
			pr_info("bench_vm_pages: pageblock flags=%#lx first_pfn=%#lx count=%lu\n",
				f, pb[f].first_pfn, pb[f].count);
	pr_info("bench_vm_pages: range start_pfn=%#lx nr_pages=%lu words=%zu classes=%zu seq=%016llx pageblocks=%lu pb_seq=%016llx\n",
		start_pfn, nr_pages, WORDS, nr, seq, nr_pb, pb_seq);
out:
	kfree(classes);
	put_dev_pagemap(pgmap);
	return ret;
}

static void __exit bench_vm_pages_exit(void)
{
}

module_init(bench_vm_pages_init);
module_exit(bench_vm_pages_exit);
MODULE_DESCRIPTION("bench-vm: a digest of the struct pages of a ZONE_DEVICE range");
MODULE_LICENSE("GPL");
