// ringbloom/ringbloom.hpp: the umbrella header; includes every public header.
#pragma once

#include "ringbloom/blocked_bloom.hpp"
#include "ringbloom/bloom.hpp"
#include "ringbloom/counting_bloom.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter_file.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/jump.hpp"
#include "ringbloom/ring.hpp"
#include "ringbloom/ring_holder.hpp"
#include "ringbloom/scalable_bloom.hpp"
#include "ringbloom/topology.hpp"
#include "ringbloom/version.hpp"
