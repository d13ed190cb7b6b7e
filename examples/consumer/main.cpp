// Uses the installed ringbloom package; exits non-zero if anything is off.
#include <cstdio>
#include <ringbloom/ringbloom.hpp>

int main() {
  // The German lesson's first Bloom position of "anna" (m = 16): 4.
  const auto position = ringbloom::sha256_64("0:anna") % 16;
  if (position != 4) {
    std::fprintf(stderr, "consumer: expected position 4, got %llu\n",
                 static_cast<unsigned long long>(position));
    return 1;
  }
  std::printf("consumer: ringbloom %s works (anna -> bit %llu)\n", ringbloom::version_string.data(),
              static_cast<unsigned long long>(position));
  return 0;
}
