#include "engine/trace/hdf5_checked.h"

#include <catch2/catch.hpp>

#include "tests/engine/trace/temp_dir.h"

namespace fb::h5 {
namespace {

// A file with a 2-element int64 attribute "pair" on the root and a 2-D int64 dataset "grid".
std::string WriteOddShapes(const test::TempDir& dir) {
  const std::string path = dir.file("odd.h5");
  Hdf5Guard guard;
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  hsize_t two[1] = {2};
  Handle space(H5Screate_simple(1, two, nullptr), H5Sclose);
  Handle attr(H5Acreate2(f.get(), "pair", H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  const int64_t values[4] = {1, 2, 3, 4};
  REQUIRE(H5Awrite(attr.get(), H5T_NATIVE_INT64, values) >= 0);
  hsize_t dims[2] = {2, 2};
  Handle grid_space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(f.get(), "grid", H5T_NATIVE_INT64, grid_space.get(), H5P_DEFAULT,
                       H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose);
  REQUIRE(H5Dwrite(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
  return path;
}

TEST_CASE("Scalar attribute readers reject attributes of several values", "[trace][errors]") {
  // Reading one int64 from a 2-element attribute would write past the value.
  test::TempDir dir;
  const std::string path = WriteOddShapes(dir);
  Hdf5Guard guard;
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  auto checked = ReadCheckedIntAttr(f.get(), "pair", FileBounds{path, 4096});
  REQUIRE_FALSE(checked.ok());
  CHECK_THAT(checked.status().message(),
             Catch::Contains(path + ": attribute 'pair' must hold exactly one value"));
  auto plain = ReadIntAttr(f.get(), "pair", path);  // hdf5_util.h, used by checkpoints
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.status().code() == Code::kInvalidArgument);
  CHECK_THAT(plain.status().message(),
             Catch::Contains(path + ": attribute 'pair' must hold exactly one value"));
}

TEST_CASE("OpenChecked rejects a dataset of another rank, naming file and dataset",
          "[trace][errors]") {
  test::TempDir dir;
  const std::string path = WriteOddShapes(dir);
  auto bounds = GetFileBounds(path);
  REQUIRE(bounds.ok());
  Hdf5Guard guard;
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  auto d = ReadCheckedInt64s(f.get(), "grid", 100, *bounds);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().code() == Code::kInvalidArgument);
  CHECK_THAT(d.status().message(), Catch::Contains(path + ": dataset /grid: must be 1-D"));
  auto missing = ReadCheckedBytes(f.get(), "nothing", *bounds);
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(), Catch::Contains(path + ": missing dataset /nothing"));
}

}  // namespace
}  // namespace fb::h5
