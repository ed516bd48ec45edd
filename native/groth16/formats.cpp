#include "formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <new>

namespace vcg {

namespace {

// Bytes to read from: a file (read on demand with pread) or a buffer (standard input).
class Source {
 public:
  virtual ~Source() = default;
  virtual std::uint64_t size() const = 0;
  // Copies len bytes at offset into dst; the caller has checked offset + len <= size().
  virtual void read(std::uint64_t offset, void* dst, std::size_t len) = 0;
};

class FileSource : public Source {
 public:
  FileSource(const std::string& path, const std::string& what) : path_(path), what_(what) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw ProverError{kExitIo, what + " " + path + ": cannot open (" + std::strerror(errno) + ")"};
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw ProverError{kExitIo, what + " " + path + ": not a regular file"};
    }
    size_ = (std::uint64_t)st.st_size;
  }
  ~FileSource() override { ::close(fd_); }
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, void* dst, std::size_t len) override {
    auto* out = static_cast<unsigned char*>(dst);
    while (len > 0) {
      ssize_t got = ::pread(fd_, out, len, (off_t)offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw ProverError{kExitIo, what_ + " " + path_ + ": read failed (" + (got < 0 ? std::strerror(errno) : "file shrank") + ")"};
      out += got;
      offset += (std::uint64_t)got;
      len -= (std::size_t)got;
    }
  }

 private:
  std::string path_, what_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

class BufferSource : public Source {
 public:
  explicit BufferSource(std::vector<unsigned char> bytes) : bytes_(std::move(bytes)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, void* dst, std::size_t len) override {
    if (len > 0) std::memcpy(dst, bytes_.data() + offset, len);
  }

 private:
  std::vector<unsigned char> bytes_;
};

std::uint32_t le32(const unsigned char* p) {
  return (std::uint32_t)p[0] | (std::uint32_t)p[1] << 8 | (std::uint32_t)p[2] << 16 | (std::uint32_t)p[3] << 24;
}
std::uint64_t le64(const unsigned char* p) { return (std::uint64_t)le32(p) | (std::uint64_t)le32(p + 4) << 32; }
U256 le256(const unsigned char* p) {
  U256 x;
  for (int i = 0; i < 4; ++i) x.limb[i] = le64(p + 8 * i);
  return x;
}

struct Section {
  std::uint64_t offset, size;
};

// A binfile's section table, checked against the file's size.
class BinFile {
 public:
  BinFile(std::unique_ptr<Source> source, const std::string& name, const char magic[4], std::uint32_t maxVersion, int code)
      : source_(std::move(source)), name_(name), code_(code) {
    const std::uint64_t total = source_->size();
    if (total < 12) fail("too short to be a " + std::string(magic, 4) + " file (" + std::to_string(total) + " bytes)");
    unsigned char head[12];
    source_->read(0, head, 12);
    if (std::memcmp(head, magic, 4) != 0) fail("not a " + std::string(magic, 4) + " file (wrong magic bytes)");
    const std::uint32_t version = le32(head + 4);
    if (version < 1 || version > maxVersion) fail("unsupported version " + std::to_string(version));
    const std::uint32_t count = le32(head + 8);
    std::uint64_t pos = 12;
    for (std::uint32_t i = 0; i < count; ++i) {
      if (total - pos < 12) fail("truncated: section " + std::to_string(i + 1) + " of " + std::to_string(count) + " is missing");
      unsigned char sh[12];
      source_->read(pos, sh, 12);
      const std::uint32_t type = le32(sh);
      const std::uint64_t size = le64(sh + 4);
      pos += 12;
      if (size > total - pos) fail("truncated: section " + std::to_string(type) + " claims " + std::to_string(size) + " bytes, " + std::to_string(total - pos) + " remain");
      if (sections_.count(type) != 0) fail("section " + std::to_string(type) + " appears twice");
      sections_[type] = Section{pos, size};
      pos += size;
    }
  }

  [[noreturn]] void fail(const std::string& why) const { throw ProverError{code_, name_ + ": " + why}; }

  const Section& section(std::uint32_t type, const char* what) const {
    auto it = sections_.find(type);
    if (it == sections_.end()) fail("section " + std::to_string(type) + " (" + what + ") is missing");
    return it->second;
  }

  // The section's bytes, which must number exactly `expected`.
  std::vector<unsigned char> bytes(std::uint32_t type, const char* what, std::uint64_t expected) const {
    const Section& s = section(type, what);
    if (s.size != expected) fail("section " + std::to_string(type) + " (" + what + ") has " + std::to_string(s.size) + " bytes, expected " + std::to_string(expected));
    std::vector<unsigned char> out;
    try {
      out.resize((std::size_t)expected);
    } catch (const std::bad_alloc&) {
      throw ProverError{kExitResources, name_ + ": out of memory reading section " + std::to_string(type)};
    }
    source_->read(s.offset, out.data(), out.size());
    return out;
  }

  // Reads `count` fixed-size records of the section directly into `out` (its size must match).
  template <class T>
  void records(std::uint32_t type, const char* what, std::uint64_t count, std::vector<T>& out) const {
    const Section& s = section(type, what);
    const std::uint64_t expected = count * sizeof(T);
    if (s.size != expected) fail("section " + std::to_string(type) + " (" + what + ") has " + std::to_string(s.size) + " bytes, expected " + std::to_string(expected) + " (" + std::to_string(count) + " entries)");
    try {
      out.resize((std::size_t)count);
    } catch (const std::bad_alloc&) {
      throw ProverError{kExitResources, name_ + ": out of memory reading section " + std::to_string(type)};
    }
    if (count > 0) source_->read(s.offset, out.data(), (std::size_t)expected);
  }

  std::uint64_t section_size(std::uint32_t type, const char* what) const { return section(type, what).size; }
  Source& source() const { return *source_; }

 private:
  std::unique_ptr<Source> source_;
  std::string name_;
  int code_;
  std::map<std::uint32_t, Section> sections_;
};

bool equals_modulus(const U256& x, const u64 p[4]) {
  return x.limb[0] == p[0] && x.limb[1] == p[1] && x.limb[2] == p[2] && x.limb[3] == p[3];
}

// Every point of a section: coordinates below q and on the curve. (Membership of the prime-order
// subgroup is not checked: a key that passes this but not that gives proofs that do not verify.)
template <class F>
bool coordinates_canonical(const Affine<F>& p);
template <>
bool coordinates_canonical<Fq>(const Affine<Fq>& p) {
  return Fq::is_canonical(p.x.v) && Fq::is_canonical(p.y.v);
}
template <>
bool coordinates_canonical<Fq2>(const Affine<Fq2>& p) {
  return Fq::is_canonical(p.x.c0.v) && Fq::is_canonical(p.x.c1.v) && Fq::is_canonical(p.y.c0.v) && Fq::is_canonical(p.y.c1.v);
}

template <class F>
void check_points(const BinFile& file, const std::vector<Affine<F>>& points, const F& b, const char* what) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!coordinates_canonical(points[i])) file.fail(std::string(what) + " point " + std::to_string(i) + " has a coordinate not below q");
    if (!on_curve(points[i], b)) file.fail(std::string(what) + " point " + std::to_string(i) + " is not on the curve");
  }
}

static_assert(sizeof(G1Affine) == 64, "G1 affine points are two 32-byte coordinates, as in a .zkey");
static_assert(sizeof(G2Affine) == 128, "G2 affine points are four 32-byte coordinates, as in a .zkey");
static_assert(sizeof(U256) == 32, "field values are 32 bytes");

}  // namespace

ProvingKey read_proving_key(const std::string& path) {
  const std::string name = "proving key " + path;
  BinFile file(std::make_unique<FileSource>(path, "proving key"), name, "zkey", 1, kExitBadKey);

  // Section 1: the protocol.
  {
    const Section& s = file.section(1, "header");
    if (s.size < 4) file.fail("section 1 (header) is too short");
    unsigned char b[4];
    file.source().read(s.offset, b, 4);
    const std::uint32_t protocol = le32(b);
    if (protocol != 1) file.fail("not a Groth16 proving key (protocol id " + std::to_string(protocol) + ", Groth16 is 1)");
  }

  ProvingKey key;
  const Fq b1 = g1_b();
  const Fq2 b2 = g2_b();

  // Section 2: the Groth16 header, 4+32+4+32+12 bytes then 3 G1 and 3 G2 points.
  {
    const std::vector<unsigned char> h = file.bytes(2, "Groth16 header", 84 + 3 * 64 + 3 * 128);
    if (le32(&h[0]) != 32 || !equals_modulus(le256(&h[4]), FqParams::P)) file.fail("not a BN254 (bn128) key: the base field is not BN254's");
    if (le32(&h[36]) != 32 || !equals_modulus(le256(&h[40]), FrParams::P)) file.fail("not a BN254 (bn128) key: the scalar field is not BN254's");
    key.nVars = le32(&h[72]);
    key.nPublic = le32(&h[76]);
    key.domainSize = le32(&h[80]);
    if (key.nVars == 0 || key.nPublic >= key.nVars) file.fail("header has " + std::to_string(key.nVars) + " signals and " + std::to_string(key.nPublic) + " public ones");
    if (key.domainSize < 2 || (key.domainSize & (key.domainSize - 1)) != 0) file.fail("domain size " + std::to_string(key.domainSize) + " is not a power of two");
    if (key.domainSize > (1u << 27)) file.fail("domain size " + std::to_string(key.domainSize) + " is above 2^27, the largest this prover handles");
    std::size_t off = 84;
    auto g1 = [&](G1Affine& p, const char* what) {
      std::memcpy(&p, &h[off], 64);
      off += 64;
      if (!coordinates_canonical(p) || !on_curve(p, b1)) file.fail(std::string("header point ") + what + " is not a valid G1 point");
    };
    auto g2 = [&](G2Affine& p, const char* what) {
      std::memcpy(&p, &h[off], 128);
      off += 128;
      if (!coordinates_canonical(p) || !on_curve(p, b2)) file.fail(std::string("header point ") + what + " is not a valid G2 point");
    };
    g1(key.alpha1, "alpha1");
    g1(key.beta1, "beta1");
    g2(key.beta2, "beta2");
    g2(key.gamma2, "gamma2");
    g1(key.delta1, "delta1");
    g2(key.delta2, "delta2");
  }

  // Section 4: the A and B coefficients of the constraints.
  {
    const std::uint64_t size = file.section_size(4, "coefficients");
    if (size < 4) file.fail("section 4 (coefficients) is too short");
    unsigned char nb[4];
    file.source().read(file.section(4, "coefficients").offset, nb, 4);
    const std::uint64_t count = le32(nb);
    const std::vector<unsigned char> raw = file.bytes(4, "coefficients", 4 + count * 44);
    key.coefficients.resize((std::size_t)count);
    for (std::size_t i = 0; i < count; ++i) {
      const unsigned char* p = &raw[4 + i * 44];
      Coefficient& c = key.coefficients[i];
      c.matrix = le32(p);
      c.constraint = le32(p + 4);
      c.signal = le32(p + 8);
      c.value = le256(p + 12);
      if (c.matrix > 1) file.fail("coefficient " + std::to_string(i) + " names matrix " + std::to_string(c.matrix) + " (0 or 1 expected)");
      if (c.constraint >= key.domainSize) file.fail("coefficient " + std::to_string(i) + " names constraint " + std::to_string(c.constraint) + ", the domain has " + std::to_string(key.domainSize));
      if (c.signal >= key.nVars) file.fail("coefficient " + std::to_string(i) + " names signal " + std::to_string(c.signal) + ", the circuit has " + std::to_string(key.nVars));
      if (!Fr::is_canonical(c.value.limb)) file.fail("coefficient " + std::to_string(i) + " is not below r");
    }
  }

  // Sections 5 to 9: the points.
  file.records(5, "A points", key.nVars, key.A);
  check_points(file, key.A, b1, "section 5 (A points)");
  file.records(6, "B1 points", key.nVars, key.B1);
  check_points(file, key.B1, b1, "section 6 (B1 points)");
  file.records(7, "B2 points", key.nVars, key.B2);
  check_points(file, key.B2, b2, "section 7 (B2 points)");
  file.records(8, "C points", (std::uint64_t)key.nVars - key.nPublic - 1, key.C);
  check_points(file, key.C, b1, "section 8 (C points)");
  file.records(9, "H points", key.domainSize, key.H);
  check_points(file, key.H, b1, "section 9 (H points)");
  return key;
}

std::vector<U256> read_witness(const std::string& path) {
  std::unique_ptr<Source> source;
  std::string name;
  if (path == "-") {
    name = "witness (standard input)";
    std::vector<unsigned char> bytes;
    unsigned char chunk[1 << 16];
    for (;;) {
      ssize_t got = ::read(0, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw ProverError{kExitIo, name + ": read failed (" + std::strerror(errno) + ")"};
      if (got == 0) break;
      if (bytes.size() + (std::size_t)got > (std::size_t(1) << 32)) throw ProverError{kExitBadWitness, name + ": larger than 4 GiB"};
      bytes.insert(bytes.end(), chunk, chunk + got);
    }
    source = std::make_unique<BufferSource>(std::move(bytes));
  } else {
    name = "witness " + path;
    source = std::make_unique<FileSource>(path, "witness");
  }
  BinFile file(std::move(source), name, "wtns", 2, kExitBadWitness);
  const Section& h = file.section(1, "header");
  if (h.size != 4 + 32 + 4) {
    // Read the field size first to say what is wrong: a field other than BN254's r, or a bad size.
    if (h.size >= 4) {
      unsigned char nb[4];
      file.source().read(h.offset, nb, 4);
      if (le32(nb) != 32) file.fail("values are " + std::to_string(le32(nb)) + " bytes, not a BN254 witness (32-byte values)");
    }
    file.fail("section 1 (header) has " + std::to_string(h.size) + " bytes, expected 40");
  }
  const std::vector<unsigned char> head = file.bytes(1, "header", 40);
  if (le32(&head[0]) != 32) file.fail("values are " + std::to_string(le32(&head[0])) + " bytes, not a BN254 witness (32-byte values)");
  if (!equals_modulus(le256(&head[4]), FrParams::P)) file.fail("the field is not BN254's scalar field (a witness of another curve)");
  const std::uint32_t count = le32(&head[36]);
  std::vector<U256> values;
  file.records(2, "values", count, values);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!Fr::is_canonical(values[i].limb)) file.fail("value " + std::to_string(i) + " is not below the field modulus r");
  }
  if (values.empty() || values[0].limb[0] != 1 || values[0].limb[1] != 0 || values[0].limb[2] != 0 || values[0].limb[3] != 0) {
    file.fail("value 0 (the constant signal) is not 1");
  }
  return values;
}

}  // namespace vcg
