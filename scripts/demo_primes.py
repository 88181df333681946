"""How many primes lie in [LO, HI): one task of scripts/demo's real work
(a segmented sieve of Eratosthenes; prints the count)."""
import math
import sys

lo, hi = int(sys.argv[1]), int(sys.argv[2])
is_prime = bytearray([1]) * (hi - lo)
for small in range(max(lo, 0), min(hi, 2)):  # 0 and 1 are not prime
    is_prime[small - lo] = 0
for p in range(2, math.isqrt(max(hi - 1, 0)) + 1):
    first = max(p * p, (lo + p - 1) // p * p)
    if first < hi:
        is_prime[first - lo::p] = bytes(len(range(first, hi, p)))
print(sum(is_prime))
