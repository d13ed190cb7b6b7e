// ringbloom/ringbloom.hpp: the umbrella header; includes every public header.
#pragma once

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/version.hpp"
