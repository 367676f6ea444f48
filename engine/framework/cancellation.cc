#include "engine/framework/cancellation.h"

namespace fb {

CancellationToken CancellationManager::get_cancellation_token() {
  std::lock_guard<std::mutex> l(mu_);
  return next_token_++;
}

bool CancellationManager::RegisterCallback(CancellationToken token, std::string description,
                                           std::function<void()> callback) {
  std::lock_guard<std::mutex> l(mu_);
  if (cancelled_.load()) return false;
  registrations_[token] = Registration{std::move(description), std::move(callback)};
  return true;
}

bool CancellationManager::DeregisterCallback(CancellationToken token) {
  std::lock_guard<std::mutex> l(mu_);
  registrations_.erase(token);
  return !cancelled_.load();
}

std::vector<std::string> CancellationManager::StartCancel() {
  std::map<CancellationToken, Registration> registrations;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (cancelled_.exchange(true)) return {};
    registrations.swap(registrations_);
  }
  std::vector<std::string> pending;
  for (auto& [token, r] : registrations)
    if (!r.description.empty()) pending.push_back(r.description);
  for (auto& [token, r] : registrations)
    if (r.callback) r.callback();
  return pending;
}

}  // namespace fb
