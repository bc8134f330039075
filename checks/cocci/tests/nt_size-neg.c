/* nt_size: covered constants, and run-time sizes, are fine */
void f(void *dst, const void *src, unsigned long n)
{
	memcpy_flushcache(dst, src, 64);
	memcpy_nontemporal(dst, src, 0x50);
	memcpy_nontemporal(dst, src, n);
	memcpy(dst, src, 24);
	memcpy_nontemporal_fence();
}
