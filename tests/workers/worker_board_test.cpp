// The worker board: joining, handing jobs to workers, answers, cancels,
// and what happens to a worker's jobs when it leaves or goes silent.
#include <catch2/catch.hpp>

#include "workers/worker_board.hpp"

using namespace dice;

namespace {

worker_board make_board() {
  worker_board_config c;
  c.lease_ms = 1000;
  c.max_workers = 2;
  c.own_kinds = {"echo", "sleep"};
  c.id_prefix = "7-";
  return worker_board{c};
}

worker_job job(std::uint64_t n, const std::string& kind) {
  return worker_job{n, "t" + std::to_string(n), 1, kind, "p" + std::to_string(n), 0};
}

std::string join(worker_board& b, std::vector<std::string> kinds,
                 std::size_t concurrency = 1, millis now = 0) {
  std::string why;
  auto id = b.join(kinds, concurrency, "host:1", now, why);
  REQUIRE(id);
  return *id;
}

} // namespace

TEST_CASE("worker board: a join is refused with its reason") {
  auto b = make_board();
  std::string why;
  CHECK_FALSE(b.join({}, 1, "", 0, why));
  CHECK(why == "a worker serves at least one kind");
  CHECK_FALSE(b.join({"echo"}, 1, "", 0, why));
  CHECK(why.find("built into this node") != std::string::npos);
  CHECK_FALSE(b.join({"evaluation"}, 1, "", 0, why));
  CHECK_FALSE(b.join({"a b"}, 1, "", 0, why));
  CHECK(why.find("letters, digits") != std::string::npos);
  CHECK_FALSE(b.join({std::string(65, 'x')}, 1, "", 0, why));
  CHECK_FALSE(b.join({"resize"}, 0, "", 0, why));
  CHECK(why.find("concurrency") != std::string::npos);
  join(b, {"resize"});
  join(b, {"thumb"});
  CHECK_FALSE(b.join({"other"}, 1, "", 0, why));
  CHECK(why.find("--workers-max") != std::string::npos);
  CHECK(b.served_kinds() == std::vector<std::string>{"resize", "thumb"});
}

TEST_CASE("worker board: ids carry the node's prefix and are not reused") {
  auto b = make_board();
  auto a = join(b, {"resize"});
  CHECK(a.rfind("7-w", 0) == 0);
  b.leave(a);
  CHECK_FALSE(b.knows(a));
  CHECK(join(b, {"resize"}) != a);
}

TEST_CASE("worker board: a job of no served kind is refused, so its slot fails it back") {
  auto b = make_board();
  CHECK_FALSE(b.offer(job(1, "resize")));
  join(b, {"resize"});
  CHECK(b.offer(job(1, "resize")));
  CHECK_FALSE(b.offer(job(2, "thumb")));
}

TEST_CASE("worker board: a worker takes the oldest jobs of its kinds, up to its concurrency") {
  auto b = make_board();
  auto w = join(b, {"resize", "thumb"}, 2);
  b.offer(job(1, "thumb"));
  b.offer(job(2, "resize"));
  b.offer(job(3, "thumb"));
  CHECK(b.has_work(w));
  auto got = b.take(w, 5, 10);
  REQUIRE(got.jobs.size() == 2); // its concurrency, whatever it asks
  CHECK(got.jobs[0].job == 1);
  CHECK(got.jobs[1].job == 2);
  CHECK(got.jobs[0].payload == "p1");
  CHECK_FALSE(b.has_work(w)); // full: job 3 waits
  CHECK(b.queued() == 1);
  auto end = b.finish(w, job_end{1, true, false, "done 1"}, 20);
  REQUIRE(end);
  CHECK(end->result_or_reason == "done 1");
  CHECK(b.take(w, 5, 30).jobs.at(0).job == 3);
  CHECK(b.counters().jobs_handed == 3);
  CHECK(b.counters().jobs_finished == 1);
}

TEST_CASE("worker board: an answer for a job the worker does not hold is late") {
  auto b = make_board();
  auto w = join(b, {"resize"});
  auto v = join(b, {"resize"});
  b.offer(job(1, "resize"));
  b.take(w, 1, 0);
  CHECK_FALSE(b.finish(v, job_end{1, true, false, "x"}, 0)); // not v's
  CHECK_FALSE(b.finish(w, job_end{9, true, false, "x"}, 0)); // nobody's
  CHECK(b.counters().late_answers == 2);
  CHECK(b.finish(w, job_end{1, true, false, "x"}, 0));
  CHECK_FALSE(b.finish(w, job_end{1, true, false, "x"}, 0)); // once only
}

TEST_CASE("worker board: a cancel drops a queued job and tells the worker holding one") {
  auto b = make_board();
  auto w = join(b, {"resize"});
  b.offer(job(1, "resize"));
  b.offer(job(2, "resize"));
  b.take(w, 1, 0);
  CHECK_FALSE(b.cancel(2)); // queued: dropped, nobody to tell
  CHECK(b.queued() == 0);
  auto told = b.cancel(1);
  REQUIRE(told);
  CHECK(*told == w);
  CHECK(b.has_work(w)); // a cancel to hear
  auto got = b.take(w, 1, 0);
  CHECK(got.canceled == std::vector<std::uint64_t>{1});
  CHECK(b.take(w, 1, 0).canceled.empty()); // told once
  // Its answer comes anyway: late, dropped.
  CHECK_FALSE(b.finish(w, job_end{1, true, false, "x"}, 0));
}

TEST_CASE("worker board: a worker that leaves fails its jobs and the queued ones nobody serves") {
  auto b = make_board();
  auto w = join(b, {"resize", "thumb"});
  auto v = join(b, {"thumb"});
  b.offer(job(1, "resize"));
  b.offer(job(2, "resize"));
  b.offer(job(3, "thumb"));
  b.take(w, 1, 0); // job 1
  auto ends = b.leave(w);
  REQUIRE(ends.size() == 2);
  CHECK(ends[0].job == 1);
  CHECK_FALSE(ends[0].ok);
  CHECK_FALSE(ends[0].final); // the task runs again
  CHECK(ends[0].result_or_reason.find("left while running it") != std::string::npos);
  CHECK(ends[1].job == 2);
  CHECK(ends[1].result_or_reason.find("no worker serves kind 'resize'") != std::string::npos);
  // thumb is still served: job 3 waits for v.
  CHECK(b.queued() == 1);
  CHECK(b.take(v, 1, 0).jobs.at(0).job == 3);
  CHECK(b.served_kinds() == std::vector<std::string>{"thumb"});
  CHECK(b.counters().jobs_lost == 2);
}

TEST_CASE("worker board: a worker silent past its lease is gone, one waiting in a take is not") {
  auto b = make_board();
  auto w = join(b, {"resize"}, 1, 0);
  auto v = join(b, {"thumb"}, 1, 0);
  b.offer(job(1, "resize"));
  b.take(w, 1, 100);
  b.waiting(v, true, 100);
  CHECK(b.expire(1100).empty()); // exactly the lease: still here
  auto ends = b.expire(1101);
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].job == 1);
  CHECK(ends[0].result_or_reason.find("went silent: no request in 1000 ms")
        != std::string::npos);
  CHECK_FALSE(b.knows(w));
  CHECK(b.knows(v));
  CHECK(b.expire(50000).empty()); // v waits in a take
  b.waiting(v, false, 50000);
  CHECK(b.expire(51001).empty()); // it held nothing, but it is gone
  CHECK_FALSE(b.knows(v));
  CHECK(b.counters().lapsed == 2);
  CHECK(b.size() == 0);
}
