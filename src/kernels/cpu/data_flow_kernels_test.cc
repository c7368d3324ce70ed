// The queue and accumulator ops through real sessions: values, shapes, errors, waits
// released by another thread, by closing, and by cancelling the step.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "graph/graph.h"
#include "tensorweave/data_flow_ops.h"
#include "tensorweave/session.h"
#include "testing/cancelled_step.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using absl::StatusCode;

// The status a run fails with (OK if it succeeds).
absl::Status RunStatus(Session& sess, const std::vector<Output>& fetches,
                       const std::vector<Operation>& targets = {}) {
  try {
    sess.run(fetches, {}, targets);
    return absl::OkStatus();
  } catch (const StatusError& e) {
    return e.status();
  }
}

TEST(FIFOQueueTest, EnqueueDequeueInOrderWithTwoComponents) {
  Graph g;
  FIFOQueue q(g, 10, {DType::kFloat, DType::kInt32}, {PartialShape({}), PartialShape({2})});
  auto x = placeholder(g, DType::kFloat, PartialShape({}), "x");
  auto y = placeholder(g, DType::kInt32, PartialShape({2}), "y");
  Operation enq = q.enqueue({x, y});
  std::vector<Output> deq = q.dequeue();
  ASSERT_EQ(deq.size(), 2u);
  EXPECT_EQ(deq[0].dtype(), DType::kFloat);
  EXPECT_EQ(deq[1].dtype(), DType::kInt32);
  Output size = q.size();
  Session sess(g);
  for (int i = 0; i < 3; ++i) {
    sess.run({}, {{x, Tensor::Scalar<float>(i + 0.5f)}, {y, I32({2}, {i, -i})}}, {enq});
  }
  EXPECT_EQ(sess.run(size).scalar<int32_t>(), 3);
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> got = sess.run(deq);
    EXPECT_TENSOR_EQ(got[0], Tensor::Scalar<float>(i + 0.5f));
    EXPECT_TENSOR_EQ(got[1], I32({2}, {i, -i}));
  }
  EXPECT_EQ(sess.run(size).scalar<int32_t>(), 0);
}

TEST(FIFOQueueTest, EnqueueManyThenDequeueManyRestacks) {
  Graph g;
  FIFOQueue q(g, -1, {DType::kFloat}, {PartialShape({2})});
  Operation enq = q.enqueue_many({constant(g, std::vector<float>{1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))});
  std::vector<Output> two = q.dequeue_many(2);
  std::vector<Output> one = q.dequeue();
  Session sess(g);
  sess.run(enq);
  EXPECT_EQ(sess.run(q.size()).scalar<int32_t>(), 3);
  EXPECT_TENSOR_EQ(sess.run(two[0]), F32({2, 2}, {1, 2, 3, 4}));
  EXPECT_TENSOR_EQ(sess.run(one[0]), F32({2}, {5, 6}));
  EXPECT_TENSOR_EQ(sess.run(q.dequeue_many(0)[0]), F32({0, 2}, {}));
}

TEST(FIFOQueueTest, RejectsElementsOfTheWrongDtypeOrShape) {
  Graph g;
  FIFOQueue q(g, -1, {DType::kFloat}, {PartialShape({2})});
  auto wrong_type = q.enqueue({constant(g, std::vector<int32_t>{1, 2}, TensorShape({2}))});
  auto wrong_shape = q.enqueue({constant(g, std::vector<float>{1, 2, 3}, TensorShape({3}))});
  auto wrong_count = q.enqueue({constant(g, 1.0f), constant(g, 2.0f)});
  auto not_batched = q.enqueue_many({constant(g, 1.0f)});
  Session sess(g);
  EXPECT_STATUS(RunStatus(sess, {}, {wrong_type}), StatusCode::kInvalidArgument,
                "component 0 of FIFOQueue 'fifo_queue' is float32 but was given int32");
  EXPECT_STATUS(RunStatus(sess, {}, {wrong_shape}), StatusCode::kInvalidArgument,
                "has shape [2] but was given [3]");
  EXPECT_STATUS(RunStatus(sess, {}, {wrong_count}), StatusCode::kInvalidArgument,
                "has 1 components but was given 2");
  EXPECT_STATUS(RunStatus(sess, {}, {not_batched}), StatusCode::kInvalidArgument,
                "batched along dimension 0");
}

TEST(FIFOQueueTest, DequeueManyNeedsDeclaredShapesAndSharedQueuesMustAgree) {
  Graph g;
  FIFOQueue anyshape(g, -1, {DType::kFloat}, {}, "", "anyshape");
  FIFOQueue first(g, -1, {DType::kFloat}, {}, "shared_q", "first");
  FIFOQueue second(g, -1, {DType::kInt64}, {}, "shared_q", "second");
  Session sess(g);
  EXPECT_STATUS(RunStatus(sess, anyshape.dequeue_many(1)), StatusCode::kInvalidArgument,
                "needs the queue's components to have fully defined shapes");
  sess.run(first.queue_ref());
  EXPECT_STATUS(RunStatus(sess, {second.queue_ref()}), StatusCode::kInvalidArgument,
                "shared queue 'shared_q' has component types [float32] but requested [int64]");
  EXPECT_THROW(FIFOQueue(g, -1, {DType::kFloat}, {PartialShape({}), PartialShape({})}),
               StatusError);
}

TEST(FIFOQueueTest, ClosedQueueEndsDequeuesAndRefusesEnqueues) {
  Graph g;
  FIFOQueue q(g, -1, {DType::kFloat}, {PartialShape({})});
  auto enq = q.enqueue({constant(g, 7.0f)});
  auto deq = q.dequeue()[0];
  auto close = q.close();
  Session sess(g);
  sess.run(enq);
  sess.run(close);
  EXPECT_EQ(sess.run(deq).scalar<float>(), 7.0f) << "elements enqueued before close remain";
  EXPECT_STATUS(RunStatus(sess, {deq}), StatusCode::kOutOfRange,
                "FIFOQueue 'fifo_queue' is closed and has insufficient elements (requested 1, "
                "current size 0)");
  EXPECT_STATUS(RunStatus(sess, {}, {enq}), StatusCode::kCancelled, "is closed");
}

TEST(FIFOQueueTest, BlockedDequeueIsReleasedByAnEnqueueFromAnotherThread) {
  Graph g;
  FIFOQueue q(g, -1, {DType::kInt32}, {PartialShape({})});
  auto v = placeholder(g, DType::kInt32, PartialShape({}), "v");
  auto enq = q.enqueue({v});
  auto deq = q.dequeue()[0];
  Session sess(g);
  sess.run(q.size());  // Sends the graph before the threads share the session.
  std::atomic<bool> finished{false};
  Tensor got;
  std::thread consumer([&] {
    got = sess.run(deq);
    finished = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // Let it wait (not required).
  EXPECT_FALSE(finished.load()) << "a dequeue finished on an empty queue";
  sess.run({}, {{v, Tensor::Scalar<int32_t>(42)}}, {enq});
  consumer.join();
  EXPECT_EQ(got.scalar<int32_t>(), 42);
}

TEST(FIFOQueueTest, FullQueueBlocksEnqueueUntilADequeue) {
  Graph g;
  FIFOQueue q(g, 1, {DType::kInt32}, {PartialShape({})});
  auto v = placeholder(g, DType::kInt32, PartialShape({}), "v");
  auto enq = q.enqueue({v});
  auto deq = q.dequeue()[0];
  Session sess(g);
  sess.run({}, {{v, Tensor::Scalar<int32_t>(1)}}, {enq});
  std::atomic<bool> finished{false};
  std::thread producer([&] {
    sess.run({}, {{v, Tensor::Scalar<int32_t>(2)}}, {enq});
    finished = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(finished.load()) << "an enqueue finished on a full queue";
  EXPECT_EQ(sess.run(deq).scalar<int32_t>(), 1);
  producer.join();
  EXPECT_EQ(sess.run(deq).scalar<int32_t>(), 2);
}

TEST(FIFOQueueTest, CloseReleasesWaitingDequeuesAndCancelsWaitingEnqueues) {
  Graph g;
  FIFOQueue empty(g, -1, {DType::kFloat}, {PartialShape({})}, "", "empty");
  FIFOQueue full(g, 1, {DType::kFloat}, {PartialShape({})}, "", "full");
  auto deq = empty.dequeue()[0];
  auto enq = full.enqueue({constant(g, 1.0f)});
  auto close_empty = empty.close();
  auto close_full = full.close(/*cancel_pending_enqueues=*/true);
  Session sess(g);
  sess.run(enq);
  absl::Status deq_status, enq_status;
  std::thread consumer([&] { deq_status = RunStatus(sess, {deq}); });
  std::thread producer([&] { enq_status = RunStatus(sess, {}, {enq}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  sess.run(close_empty);
  sess.run(close_full);
  consumer.join();
  producer.join();
  EXPECT_STATUS(deq_status, StatusCode::kOutOfRange, "FIFOQueue 'empty' is closed");
  EXPECT_STATUS(enq_status, StatusCode::kCancelled, "FIFOQueue 'full' is closed");
}

TEST(FIFOQueueTest, CancellingTheStepReleasesABlockedDequeue) {
  Graph g;
  FIFOQueue q(g, -1, {DType::kFloat}, {PartialShape({})});
  q.dequeue();
  testing::CancelledStep step(g);
  EXPECT_STATUS(step.RunAndCancel(), StatusCode::kCancelled, "");
}

TEST(ConditionalAccumulatorTest, TakesTheMeanOrSumAndAdvancesTheStep) {
  Graph g;
  ConditionalAccumulator mean(g, DType::kFloat, PartialShape({2}), "", "mean");
  ConditionalAccumulator sum(g, DType::kFloat, PartialShape({2}), "", "sum", "SUM");
  auto grad = placeholder(g, DType::kFloat, PartialShape({2}), "grad");
  auto step = placeholder(g, DType::kInt64, PartialShape({}), "step");
  auto apply_mean = mean.apply_grad(grad, step);
  auto apply_sum = sum.apply_grad(grad, step);
  auto take_mean = mean.take_grad(2);
  auto take_sum = sum.take_grad(2);
  auto count = mean.num_accumulated();
  Session sess(g);
  auto apply = [&](std::vector<float> v, int64_t s) {
    sess.run({}, {{grad, F32({2}, v)}, {step, Tensor::Scalar<int64_t>(s)}}, {apply_mean, apply_sum});
  };
  apply({1, 2}, 0);
  apply({3, 6}, 0);
  EXPECT_EQ(sess.run(count).scalar<int32_t>(), 2);
  EXPECT_TENSOR_EQ(sess.run(take_mean), F32({2}, {2, 4}));
  EXPECT_TENSOR_EQ(sess.run(take_sum), F32({2}, {4, 8}));
  EXPECT_EQ(sess.run(count).scalar<int32_t>(), 0);
  // The take advanced the global step to 1: a gradient of local step 0 is stale.
  apply({100, 100}, 0);
  EXPECT_EQ(sess.run(count).scalar<int32_t>(), 0);
  apply({5, 5}, 1);
  apply({7, 9}, 3);
  EXPECT_TENSOR_EQ(sess.run(take_mean), F32({2}, {6, 7}));
}

TEST(ConditionalAccumulatorTest, SetGlobalStepMakesOlderGradientsStale) {
  Graph g;
  ConditionalAccumulator acc(g, DType::kDouble, PartialShape({}));
  auto set = acc.set_global_step(constant(g, int64_t{5}));
  auto old_grad = acc.apply_grad(constant(g, 1.0), constant(g, int64_t{4}));
  auto new_grad = acc.apply_grad(constant(g, 2.0), constant(g, 5));
  Session sess(g);
  sess.run(set);
  sess.run(old_grad);
  EXPECT_EQ(sess.run(acc.num_accumulated()).scalar<int32_t>(), 0);
  sess.run(new_grad);
  EXPECT_EQ(sess.run(acc.num_accumulated()).scalar<int32_t>(), 1);
  EXPECT_EQ(sess.run(acc.take_grad(1)).scalar<double>(), 2.0);
}

TEST(ConditionalAccumulatorTest, RejectsGradientsOfAnotherShapeOrDtype) {
  Graph g;
  ConditionalAccumulator acc(g, DType::kFloat, PartialShape({-1}));
  auto step = constant(g, int64_t{0});
  auto first = acc.apply_grad(constant(g, std::vector<float>{1, 2}, TensorShape({2})), step);
  auto longer = acc.apply_grad(constant(g, std::vector<float>{1, 2, 3}, TensorShape({3})), step);
  auto matrix = acc.apply_grad(constant(g, std::vector<float>{1, 2}, TensorShape({1, 2})), step);
  auto doubles = acc.apply_grad(constant(g, 1.0), step);
  auto zero = acc.take_grad(0);
  Session sess(g);
  sess.run(first);
  EXPECT_STATUS(RunStatus(sess, {}, {longer}), StatusCode::kInvalidArgument,
                "holds gradients of shape [2] but the gradient has shape [3]");
  EXPECT_STATUS(RunStatus(sess, {}, {matrix}), StatusCode::kInvalidArgument,
                "has shape [?] but the gradient has shape [1,2]");
  EXPECT_STATUS(RunStatus(sess, {}, {doubles}), StatusCode::kInvalidArgument,
                "holds float32 but the gradient is float64");
  EXPECT_STATUS(RunStatus(sess, {zero}), StatusCode::kInvalidArgument,
                "num_required must be at least 1, not 0");
  EXPECT_THROW(ConditionalAccumulator(g, DType::kInt32), StatusError);
  ConditionalAccumulator bad_reduction(g, DType::kFloat, PartialShape({}), "", "bad", "MAX");
  EXPECT_STATUS(RunStatus(sess, {bad_reduction.accumulator_ref()}), StatusCode::kInvalidArgument,
                "reduction_type must be MEAN or SUM, not 'MAX'");
}

TEST(ConditionalAccumulatorTest, BlockedTakeIsReleasedByGradientsFromAnotherThread) {
  Graph g;
  ConditionalAccumulator acc(g, DType::kFloat, PartialShape({}));
  auto grad = placeholder(g, DType::kFloat, PartialShape({}), "grad");
  auto apply = acc.apply_grad(grad, constant(g, int64_t{0}));
  auto take = acc.take_grad(2);
  Session sess(g);
  sess.run(acc.num_accumulated());
  std::atomic<bool> finished{false};
  Tensor got;
  std::thread chief([&] {
    got = sess.run(take);
    finished = true;
  });
  sess.run({}, {{grad, Tensor::Scalar<float>(1)}}, {apply});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(finished.load()) << "a take of 2 finished with 1 gradient";
  sess.run({}, {{grad, Tensor::Scalar<float>(4)}}, {apply});
  chief.join();
  EXPECT_EQ(got.scalar<float>(), 2.5f);
}

TEST(ConditionalAccumulatorTest, CancellingTheStepReleasesABlockedTake) {
  Graph g;
  ConditionalAccumulator acc(g, DType::kFloat, PartialShape({}));
  acc.take_grad(1);
  testing::CancelledStep step(g);
  EXPECT_STATUS(step.RunAndCancel(), StatusCode::kCancelled, "");
}

}  // namespace
}  // namespace tw
