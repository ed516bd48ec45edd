#include "random.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "formats.hpp"

namespace vcg {

namespace {

// Fills buf with n bytes from the kernel's CSPRNG; blocks until it is seeded, as getrandom does.
void os_random(unsigned char* buf, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t got = ::getrandom(buf + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == ENOSYS) break;  // an old kernel: /dev/urandom below
    if (got < 0) throw ProverError{kExitInternal, std::string("getrandom failed: ") + std::strerror(errno)};
    done += (std::size_t)got;
  }
  if (done == n) return;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ProverError{kExitInternal, "no randomness: getrandom is missing and /dev/urandom cannot be opened"};
  while (done < n) {
    ssize_t got = ::read(fd, buf + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ::close(fd);
      throw ProverError{kExitInternal, "no randomness: reading /dev/urandom failed"};
    }
    done += (std::size_t)got;
  }
  ::close(fd);
}

}  // namespace

void wipe(void* p, std::size_t n) {
  volatile unsigned char* q = static_cast<volatile unsigned char*>(p);
  while (n--) *q++ = 0;
}

U256 random_scalar() {
  unsigned char bytes[32];
  U256 x;
  for (;;) {
    os_random(bytes, sizeof bytes);
    for (int i = 0; i < 4; ++i) {
      u64 limb = 0;
      for (int b = 7; b >= 0; --b) limb = (limb << 8) | bytes[8 * i + b];
      x.limb[i] = limb;
    }
    x.limb[3] &= (u64(1) << 62) - 1;  // below 2^254; r is about 0.76 * 2^254
    if (Fr::is_canonical(x.limb)) break;
  }
  wipe(bytes, sizeof bytes);
  return x;
}

}  // namespace vcg
