// Greedy placement of whitepaper 3.2.1: "The placement algorithm ... simulates the execution of
// the graph. ... For each node that is reached in this traversal, the set of feasible devices is
// considered ... For nodes with multiple feasible devices, the placement algorithm uses a greedy
// heuristic that examines the effects on the completion time of the node of placing the node on
// each possible device. This heuristic takes into account the estimated or measured execution
// time of the operation on that kind of device from the cost model, and also includes the costs
// of any communication that would be introduced in order to transmit inputs to this node from
// other devices to the considered device. The device where the node's operation would finish
// the soonest is selected." Nodes are visited in topological order; ties go to the lower device
// index. A colocation group is decided by its first member in that order. O(E * D).
#include "engine/placement/placer.h"

namespace fb {

namespace {

class GreedyPlacer : public Placer {
 public:
  StatusOr<Placement> Place(const Graph& g, const CostModel& cost, const PlacementConstraints& c,
                            const PlacerOptions&) override {
    ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
    return PlaceEarliestFinish(g, cost, c, order);
  }
};

}  // namespace

REGISTER_PLACER("greedy", GreedyPlacer);

}  // namespace fb
