#pragma once
// The feed/fetch rewrite and pruning of whitepaper 4.2 (Figure 5): every fed tensor is replaced by
// a _Feed node, every fetched tensor gets a _Fetch node, and only nodes that the fetches and
// targets transitively depend on remain, so nodes that do not contribute never run.
#include <string>
#include <vector>

#include "engine/framework/shape_inference.h"
#include "engine/graph/graph.h"

namespace fb {

struct RewriteResult {
  std::vector<DataType> feed_types;   // per feed, in order
  std::vector<DataType> fetch_types;  // per fetch
  int nodes_pruned = 0;
};

// Rewrites `g` in place. Feeds and fetches are "node:port" (or "node" for port 0); targets are
// node names. NotFound/InvalidArgument name the feed, fetch or target at fault. Feeds may be
// placed on `feed_device` (the device that receives client tensors), default: the fed node's.
Status RewriteGraphForExecution(Graph* g, const std::vector<std::string>& feeds,
                                const std::vector<std::string>& fetches,
                                const std::vector<std::string>& targets, RewriteResult* result);

// The key under which a Session (or the distributed Master) keeps what it built for one
// (feeds, fetches, targets): the names in order, each followed by ',', the lists separated by '|'.
std::string ExecutionSignature(const std::vector<std::string>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets);

// Per feed ("node:port"), the shape a fed Placeholder declares (unknown for other feeds, for a
// Placeholder of unknown rank and for names not in `g`): what Run checks fed tensors against.
std::vector<PartialShape> DeclaredFeedShapes(const Graph& g, const std::vector<std::string>& feeds);

// Removes every node that none of `roots` depends on (transitively, data or control).
int PruneForTargets(Graph* g, const std::vector<Node*>& roots);

}  // namespace fb
