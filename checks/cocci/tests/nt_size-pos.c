/* nt_size: a 24-byte and a 128-byte constant copy go out of line */
void f(void *dst, const void *src)
{
	memcpy_flushcache(dst, src, 24);
	memcpy_nontemporal(dst, src, 128);
	memcpy_nontemporal_fence();
}
