#include "tests/trainer_runtime/data/test_files.h"

#include <zlib.h>

#include <bit>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "base/crc32c.h"

namespace trainpkg::data::testing {
namespace {

void PutBigEndian(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void PutLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::string IdxHeader(uint8_t type, const std::vector<uint32_t>& dims) {
  std::string out = {'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) PutBigEndian(out, d);
  return out;
}

}  // namespace

void WriteBytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void WriteGzip(const std::filesystem::path& path, std::string_view bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error("gzopen " + path.string());
  const int n = gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  if (gzclose(file) != Z_OK || n != static_cast<int>(bytes.size())) {
    throw std::runtime_error("gzwrite " + path.string());
  }
}

std::string IdxUint8(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values) {
  std::string out = IdxHeader(0x08, dims);
  out.append(values.begin(), values.end());
  return out;
}

std::string IdxFloat32(const std::vector<uint32_t>& dims, const std::vector<float>& values) {
  std::string out = IdxHeader(0x0D, dims);
  for (float v : values) PutBigEndian(out, std::bit_cast<uint32_t>(v));
  return out;
}

std::string TfRecordFrame(std::string_view data) {
  std::string out;
  PutLittleEndian(out, data.size(), 8);
  PutLittleEndian(out, base::MaskedCrc32c(out), 4);
  out.append(data);
  PutLittleEndian(out, base::MaskedCrc32c(data), 4);
  return out;
}

void WriteTfRecords(const std::filesystem::path& path, const std::vector<std::string>& records) {
  std::string bytes;
  for (const std::string& r : records) bytes += TfRecordFrame(r);
  WriteBytes(path, bytes);
}

}  // namespace trainpkg::data::testing
