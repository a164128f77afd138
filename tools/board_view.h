// The board as a person reads it in a terminal, shared by `kumalak play` and the
// protocol's `d` command. The row of the player at the bottom reads 1..m from the left
// (their own left), the row across the table reads m..1, as when sitting at a real
// board. Header-only: the tools directory builds only cmd_*.cpp into the executable.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/i18n.h"
#include "core/notation.h"

namespace kz::cli {

// ANSI colour when stdout is a terminal and NO_COLOR is not set (https://no-color.org).
inline bool stdout_wants_color() {
  return isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

struct LastMove {
  int player = -1;          // who moved; -1 = no last move
  int from = -1;            // 0-based pit of the mover
  int landing_player = -1;  // row where the last stone landed; -1 = Kalah store
  int landing_index = -1;   // 0-based hole in that row
};

inline LastMove last_move_of(const Position& before, int move) {
  LastMove lm;
  lm.player = before.to_move;
  lm.from = move;
  Position p = before;
  const auto info = p.play(move);
  lm.landing_player = info.landing_player;
  lm.landing_index = info.landing_index;
  return lm;
}

// The side's name in the player's language (English under `kumalak engine`, which never
// sets a language).
inline std::string side_name(const Position& pos, int player) {
  if (pos.is_togyz()) return player == 0 ? i18n::tr("White") : i18n::tr("Black");
  return player == 0 ? i18n::tr("South") : i18n::tr("North");
}

// `labels` name the two players (e.g. "you", "engine, medium"); empty labels are left out.
inline std::string render_board(const Position& pos, int bottom, const LastMove& last, bool color,
                                const std::string labels[2]) {
  const int m = pos.npits;
  const int top = bottom ^ 1;
  const bool togyz = pos.is_togyz();
  const char* kReset = "\x1b[0m";
  const char* kFrom = "\x1b[1;33m";  // bold yellow: where the last move started
  const char* kLand = "\x1b[1;36m";  // bold cyan: where its last stone landed
  const char* kTuz = "\x1b[1;31m";   // bold red: a tuzdyk
  const char* kBold = "\x1b[1m";
  std::string out;
  auto rule = [&] {
    out += "      +";
    for (int i = 0; i < m; ++i) out += "-----+";
    out += "\n";
  };
  auto numbers = [&](bool reversed) {
    out += "      ";
    for (int i = 0; i < m; ++i) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "    %d ", reversed ? m - i : i + 1);
      out += buf;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  };
  auto cell = [&](int player, int i) {
    const bool is_tuzdyk = togyz && pos.tuzdyk[player ^ 1] == i;
    const bool from = last.player == player && last.from == i;
    const bool land = last.landing_player == player && last.landing_index == i && !from;
    char buf[16];
    if (is_tuzdyk)
      std::snprintf(buf, sizeof buf, "  X  ");
    else if (from && !color)
      std::snprintf(buf, sizeof buf, "[%3d]", pos.pit(player, i));
    else if (land && !color)
      std::snprintf(buf, sizeof buf, "(%3d)", pos.pit(player, i));
    else
      std::snprintf(buf, sizeof buf, " %3d ", pos.pit(player, i));
    std::string s = buf;
    if (color && (is_tuzdyk || from || land))
      s = std::string(is_tuzdyk ? kTuz : from ? kFrom : kLand) + s + kReset;
    return s;
  };
  auto row = [&](int player, bool reversed) {
    out += "      |";
    for (int k = 0; k < m; ++k) out += cell(player, reversed ? m - 1 - k : k) + "|";
    out += "\n";
  };
  auto header = [&](int player) {
    using i18n::tr;
    std::string name = side_name(pos, player);
    if (!labels[player].empty()) name += " (" + labels[player] + ")";
    if (pos.to_move == player && !pos.is_over()) name = tr("{side} to move", {{"side", name}});
    const int stones = pos.store[player];
    std::string store = togyz ? tr("kazan {n}", {{"n", stones}}) : tr("store {n}", {{"n", stones}});
    const bool store_hit = last.landing_player == -1 && last.player == player;
    if (store_hit)
      store = color ? kLand + store + kReset : tr("{store} (last seed)", {{"store", store}});
    if (togyz && pos.tuzdyk[player] != kNoTuzdyk)
      store = tr("{store}, tuzdyk on {side}'s hole {hole}", {{"store", store},
                                                             {"side", side_name(pos, player ^ 1)},
                                                             {"hole", pos.tuzdyk[player] + 1}});
    if (color && pos.to_move == player && !pos.is_over()) name = kBold + name + kReset;
    out += "  " + name + "   " + store + "\n";
  };
  header(top);
  numbers(true);
  rule();
  row(top, true);
  rule();
  row(bottom, false);
  rule();
  numbers(false);
  header(bottom);
  if (last.player >= 0 && !color)
    out += "  " +
           (togyz ? i18n::tr("[n] last move started here, (n) its last stone landed here, X = "
                             "tuzdyk")
                  : i18n::tr("[n] last move started here, (n) its last seed landed here")) +
           "\n";
  else if (togyz && !color && (pos.tuzdyk[0] != kNoTuzdyk || pos.tuzdyk[1] != kNoTuzdyk))
    out += "  " + i18n::tr("X = tuzdyk") + "\n";
  return out;
}

}  // namespace kz::cli
