// GPU registrations of the control-flow ops (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// ControlTrigger; whitepaper 4.4) and of the loop-gradient accumulators (ForwardAccumulator,
// AccumulatorPush, AccumulatorPop). As in TensorFlow they forward tensors without touching their
// data, so the kernels are the CPU's (kernels/cpu/control_flow_kernels.h, accumulator_kernels.h),
// which read their few host values (Switch's pred, LoopCond's input, the accumulator index)
// through Device::CopyToHost: a no-op when the executor already keeps those arguments in host
// memory as the HostMemory declarations below ask, a one-element synchronous copy otherwise.
// Outputs declared HostMemory are produced in host memory: Merge's value_index (an int32 host
// scalar), LoopCond's output (the host copy of the predicate, so that a loop's Switch nodes read
// it without further copies) and the accumulator handle (a string). Dead tensors and frames are
// the executor's business and carry no data, so GPU tensors need nothing special there.
#include "kernels/cpu/accumulator_kernels.h"
#include "kernels/cpu/control_flow_kernels.h"

namespace fb {

REGISTER_KERNEL(KernelDefBuilder("Switch").Device(DEVICE_GPU).HostMemory("pred"), SwitchOp);
REGISTER_KERNEL(KernelDefBuilder("Merge").Device(DEVICE_GPU).HostMemory("value_index"), MergeOp);
REGISTER_KERNEL(KernelDefBuilder("Enter").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("Exit").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("NextIteration").Device(DEVICE_GPU), ForwardOp);
REGISTER_KERNEL(
    KernelDefBuilder("LoopCond").Device(DEVICE_GPU).HostMemory("input").HostMemory("output"),
    LoopCondOp);
REGISTER_KERNEL(KernelDefBuilder("ControlTrigger").Device(DEVICE_GPU), ControlTriggerOp);

REGISTER_KERNEL(KernelDefBuilder("ForwardAccumulator").Device(DEVICE_GPU).HostMemory("handle"),
                ForwardAccumulatorOp);
REGISTER_KERNEL(
    KernelDefBuilder("AccumulatorPush").Device(DEVICE_GPU).HostMemory("handle").HostMemory("index"),
    AccumulatorPushOp);
REGISTER_KERNEL(
    KernelDefBuilder("AccumulatorPop").Device(DEVICE_GPU).HostMemory("handle").HostMemory("index"),
    AccumulatorPopOp);

}  // namespace fb
