#include "sim/profile_transfers.h"

#include <cmath>
#include <cstddef>

#include "engine/trace/hdf5_util.h"

namespace fb::sim {
namespace {

struct TransferRow {
  int32_t threads;
  int32_t devices;
  double bytes, transfer_ns, compress_ns, decompress_ns;
};

#define FB_TRANSFER_FIELD(handle, field, type) \
  H5Tinsert((handle).get(), #field, offsetof(TransferRow, field), type)

h5::Handle TransferType() {
  h5::Handle t(H5Tcreate(H5T_COMPOUND, sizeof(TransferRow)), H5Tclose);
  FB_TRANSFER_FIELD(t, threads, H5T_NATIVE_INT32);
  FB_TRANSFER_FIELD(t, devices, H5T_NATIVE_INT32);
  FB_TRANSFER_FIELD(t, bytes, H5T_NATIVE_DOUBLE);
  FB_TRANSFER_FIELD(t, transfer_ns, H5T_NATIVE_DOUBLE);
  FB_TRANSFER_FIELD(t, compress_ns, H5T_NATIVE_DOUBLE);
  FB_TRANSFER_FIELD(t, decompress_ns, H5T_NATIVE_DOUBLE);
  return t;
}

Status CheckRow(const std::string& path, size_t i, const TransferRow& r) {
  for (double v : {r.transfer_ns, r.compress_ns, r.decompress_ns})
    if (!std::isfinite(v) || v < 0)
      return InvalidArgument(path, ": profile /transfers row ", i,
                             " holds a negative or non-finite time (", v, ")");
  if (!std::isfinite(r.bytes) || r.bytes <= 0)
    return InvalidArgument(path, ": profile /transfers row ", i, " has bytes ", r.bytes,
                           ", expected > 0");
  if (r.devices < 2)
    return InvalidArgument(path, ": profile /transfers row ", i, " has ", r.devices,
                           " devices, expected >= 2");
  return Status::OK();
}

}  // namespace

Status WriteTransferTable(hid_t root, const std::vector<ProfileExecutor>& executor,
                          const std::string& path) {
  std::vector<TransferRow> rows;
  for (const ProfileExecutor& e : executor)
    for (const ProfileTransferPoint& t : e.transfer_points)
      rows.push_back({e.threads, t.devices, t.bytes, t.transfer_ns, t.compress_ns,
                      t.decompress_ns});
  return h5::WriteTable(root, "transfers", TransferType().get(), rows, path);
}

Status ReadTransferTable(hid_t root, const h5::FileBounds& f,
                         std::vector<ProfileExecutor>* executor) {
  ASSIGN_OR_RETURN(auto rows, h5::ReadCheckedTable<TransferRow>(root, "transfers",
                                                                 TransferType().get(), f));
  for (size_t i = 0; i < rows.size(); ++i) {
    const TransferRow& r = rows[i];
    RETURN_IF_ERROR(CheckRow(f.path, i, r));
    ProfileExecutor* e = nullptr;
    for (ProfileExecutor& x : *executor)
      if (x.threads == r.threads) e = &x;
    if (e == nullptr)
      return InvalidArgument(f.path, ": profile /transfers row ", i, " has threads ", r.threads,
                             ", which has no /executor row");
    if (!e->transfer_points.empty() && e->transfer_points.back().bytes >= r.bytes)
      return InvalidArgument(f.path, ": profile /transfers row ", i, " (threads ", r.threads,
                             ") has bytes ", r.bytes, ", expected more than the row before (",
                             e->transfer_points.back().bytes, ")");
    e->transfer_points.push_back({r.devices, r.bytes, r.transfer_ns, r.compress_ns,
                                  r.decompress_ns});
  }
  return Status::OK();
}

}  // namespace fb::sim
