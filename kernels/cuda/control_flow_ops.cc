// GPU registrations of the control-flow ops (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// ControlTrigger; whitepaper 4.4) and of the loop-gradient accumulators (ForwardAccumulator,
// AccumulatorPush, AccumulatorPop). As in TensorFlow they forward tensors without touching their
// data, so the kernels are the CPU's (kernels/cpu/control_flow_kernels.h, accumulator_kernels.h),
// which read their few host values (Switch's pred, LoopCond's input, the accumulator index)
// through Device::CopyToHost: a no-op when the executor already keeps those arguments in host
// memory as the HostMemory declarations below ask, a one-element synchronous copy otherwise.
// Outputs declared HostMemory are produced in host memory: Merge's value_index (an int32 host
// scalar), LoopCond's output (the host copy of the predicate, so that a loop's Switch nodes read
// it without further copies) and the accumulator handle (a string); for T = int32 every data
// argument is HostMemory (int32 loop counters never visit the GPU). Dead tensors and frames are
// the executor's business and carry no data, so GPU tensors need nothing special there.
#include "kernels/cpu/accumulator_kernels.h"
#include "kernels/cpu/control_flow_kernels.h"

namespace fb {

// int32 values (loop counters, the accumulator index) stay in host memory end to end, as in
// TensorFlow: these registrations come first in this file, so the registry (which takes the first
// registration that matches) picks them for T = int32 and the generic ones below for the rest.
REGISTER_KERNEL(KernelDefBuilder("Switch")
                    .Device(DEVICE_GPU)
                    .TypeConstraint<int32_t>("T")
                    .HostMemory("data")
                    .HostMemory("pred")
                    .HostMemory("output_false")
                    .HostMemory("output_true"),
                SwitchOp);
REGISTER_KERNEL(KernelDefBuilder("Merge")
                    .Device(DEVICE_GPU)
                    .TypeConstraint<int32_t>("T")
                    .HostMemory("inputs")
                    .HostMemory("output")
                    .HostMemory("value_index"),
                MergeOp);
#define FB_REGISTER_HOST_INT32(op)                                               \
  REGISTER_KERNEL(KernelDefBuilder(op)                                           \
                      .Device(DEVICE_GPU)                                        \
                      .TypeConstraint<int32_t>("T")                              \
                      .HostMemory("data")                                        \
                      .HostMemory("output"),                                     \
                  ForwardOp)
FB_REGISTER_HOST_INT32("Enter");
FB_REGISTER_HOST_INT32("Exit");
FB_REGISTER_HOST_INT32("NextIteration");
#undef FB_REGISTER_HOST_INT32
REGISTER_KERNEL(KernelDefBuilder("AccumulatorPush")
                    .Device(DEVICE_GPU)
                    .TypeConstraint<int32_t>("T")
                    .HostMemory("handle")
                    .HostMemory("index")
                    .HostMemory("value"),
                AccumulatorPushOp);
REGISTER_KERNEL(KernelDefBuilder("AccumulatorPop")
                    .Device(DEVICE_GPU)
                    .TypeConstraint<int32_t>("T")
                    .HostMemory("handle")
                    .HostMemory("index")
                    .HostMemory("value"),
                AccumulatorPopOp);

// Every other dtype: data in GPU memory, forwarded as it is.
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
