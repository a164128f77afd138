#include "core/game_clock.h"

#include <chrono>
#include <stdexcept>
#include <utility>

namespace kz {

GameClock::GameClock(const ClockControl& control, Now now)
    : control_(control), now_(std::move(now)) {
  remaining_ = {control.base_ms, control.base_ms};
}

GameClock::Now GameClock::steady_now() {
  return [] {
    return int64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count());
  };
}

void GameClock::start(int side) {
  if (side != 0 && side != 1) throw std::invalid_argument("GameClock::start: side must be 0 or 1");
  if (running_ == side) return;
  pause();
  running_ = side;
  started_at_ = now_();
}

void GameClock::pause() {
  if (running_ < 0) return;
  remaining_[running_] = remaining_ms(running_);
  running_ = -1;
}

int64_t GameClock::remaining_ms(int side) const {
  const int64_t left = remaining_.at(side);
  return side == running_ ? left - (now_() - started_at_) : left;
}

GameClock::MoveTiming GameClock::move_done(int next) {
  MoveTiming t;
  if (running_ >= 0) {
    const int mover = running_;
    const int64_t now = now_();
    t.used_ms = now - started_at_;
    remaining_[mover] -= t.used_ms;
    t.in_time = remaining_[mover] >= 0;
    if (t.in_time) remaining_[mover] += control_.increment_ms;
    t.remaining_ms = remaining_[mover];
    running_ = -1;
    if (next == 0 || next == 1) {
      running_ = next;
      started_at_ = now;  // the same instant: no time falls between the two clocks
    }
  } else if (next == 0 || next == 1) {
    start(next);
  }
  return t;
}

void GameClock::set_remaining_ms(int side, int64_t ms) {
  remaining_.at(side) = ms;
  if (side == running_) started_at_ = now_();
}

bool opponent_can_still_win(const Position& pos, int flagged_side) {
  const int total = pos.total_stones();
  const int kept = pos.store[flagged_side];  // never leaves the kazan
  return total - kept > kept;
}

Outcome flag_outcome(const Position& pos, int flagged_side) {
  if (pos.is_decided() || pos.is_over()) return pos.outcome();
  if (!opponent_can_still_win(pos, flagged_side)) return Outcome::kDraw;
  return flagged_side == 0 ? Outcome::kBlackWins : Outcome::kWhiteWins;
}

}  // namespace kz
