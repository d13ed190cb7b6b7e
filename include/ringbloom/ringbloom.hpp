// ringbloom/ringbloom.hpp: the umbrella header; includes every public header.
#pragma once

#include "ringbloom/error.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/filter/fuse_filter.hpp"
#include "ringbloom/filter/scalable_bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/checkpoint.hpp"
#include "ringbloom/placement/jump.hpp"
#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/ring_holder.hpp"
#include "ringbloom/placement/topology.hpp"
#include "ringbloom/version.hpp"
