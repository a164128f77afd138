// The game of `kumalak play` without the terminal (tools/play_session.h) and its
// sentences (tools/play_words.h): moves, refusals with their reasons, the engine's
// answer, undo, the clock's flag, the end of the game and saving.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/notation.h"
#include "tests/test_util.h"
#include "tools/play_session.h"
#include "tools/play_words.h"

namespace kz::cli {
namespace {

// An engine that plays the first legal move at once, or always `fixed` when given.
class FirstMovePlayer : public Player {
 public:
  explicit FirstMovePlayer(int fixed = -1) : fixed_(fixed) {}
  std::string name() const override { return "first-move"; }
  ThinkResult think(const Position& pos, const ThinkLimits&) override {
    ThinkResult r;
    r.best_move = fixed_ >= 0 ? fixed_ : __builtin_ctz(pos.legal_mask());
    return r;
  }

 private:
  int fixed_;
};

PlaySettings beginner(const GameSpec& spec = GameSpec::togyz()) {
  PlaySettings s;
  s.spec = spec;
  s.start = Position::start(spec);
  s.level = Level::kBeginner;
  s.hint_movetime = 0.05;
  return s;
}

TEST(PlaySession, SidesAndOptionsAreChecked) {
  EXPECT_EQ(parse_play_side("White"), 0);
  EXPECT_EQ(parse_play_side("n"), 1);
  EXPECT_EQ(parse_play_side("2"), 1);
  EXPECT_EQ(parse_play_side("east"), -1);
  PlayOptions o;
  o.level = "beginner";
  o.game = "kalah";
  o.engine_plays = "south";
  const PlaySettings s = make_play_settings(o);
  EXPECT_EQ(s.human, 1);
  EXPECT_FALSE(s.spec.is_togyz());
  EXPECT_EQ(s.level, Level::kBeginner);
  o.human = "north";
  EXPECT_THROW(make_play_settings(o), ParseError) << "both --human and --engine-plays";
  o.engine_plays = "";
  o.human = "east";
  EXPECT_THROW(make_play_settings(o), ParseError);
  o.human = "";
  o.level = "godlike";
  EXPECT_THROW(make_play_settings(o), ParseError);
  o.level = "beginner";
  o.clock = "5+";
  EXPECT_THROW(make_play_settings(o), ParseError);
}

TEST(PlaySession, LinesAreReadAsCommands) {
  EXPECT_EQ(parse_play_command("  \r").kind, PlayCommand::kNone);
  EXPECT_EQ(parse_play_command("QUIT").kind, PlayCommand::kQuit);
  EXPECT_EQ(parse_play_command("?").kind, PlayCommand::kHelp);
  const PlayCommand save = parse_play_command(" save  my game.pgn \r");
  EXPECT_EQ(save.kind, PlayCommand::kSave);
  EXPECT_EQ(save.rest, "my game.pgn");
  EXPECT_EQ(parse_play_command("76").kind, PlayCommand::kMove);
  const PlayCommand two = parse_play_command("7 7");
  EXPECT_EQ(two.kind, PlayCommand::kTwoMoves);
  const Position start = Position::start(GameSpec::togyz());
  EXPECT_EQ(not_a_command_text(start, two), "One move at a time, please (got '7 7').\n");
  const PlayCommand bogus = parse_play_command("bogus 1");
  EXPECT_EQ(bogus.kind, PlayCommand::kUnknown);
  EXPECT_EQ(not_a_command_text(start, bogus).rfind("'bogus' is not a command: type a hole", 0), 0u);
}

TEST(PlaySession, TypedMovesAreReadOrRefusedWithTheirReason) {
  const Position start = Position::start(GameSpec::togyz());
  EXPECT_EQ(read_typed_move(start, "7").move, 6);
  const TypedMove notation = read_typed_move(start, "76");
  EXPECT_EQ(notation.refusal, MoveRefusal::kNone);
  EXPECT_EQ(notation.move, 6);
  const TypedMove none = read_typed_move(start, "0");
  EXPECT_EQ(none.refusal, MoveRefusal::kNoSuchHole);
  EXPECT_EQ(move_refusal_text(start, "0", none), "There is no hole 0: yours are numbered 1-9.\n");
  const TypedMove landing = read_typed_move(start, "75");
  ASSERT_EQ(landing.refusal, MoveRefusal::kWrongLanding);
  EXPECT_EQ(landing.landing, 6);
  EXPECT_EQ(landing.given, 5);
  EXPECT_EQ(read_typed_move(start, "7x9").refusal, MoveRefusal::kBadNotation);

  Position kalah = Position::start(GameSpec::kalah(6, 4));
  EXPECT_EQ(read_typed_move(kalah, "7").refusal, MoveRefusal::kNoSuchHole);
  EXPECT_EQ(read_typed_move(kalah, "3x").refusal, MoveRefusal::kNotAPit);
  kalah.play(2);  // pit 3: the last seed lands in the store, another turn
  const TypedMove empty = read_typed_move(kalah, "3");
  ASSERT_EQ(empty.refusal, MoveRefusal::kEmptyHole);
  EXPECT_EQ(empty.legal, " 1 2 4 5 6");
  EXPECT_EQ(move_refusal_text(kalah, "3", empty),
            "Your pit 3 is empty; you can move from: 1 2 4 5 6.\n");
}

TEST(PlaySession, AMoveTheEngineAnswersAndUndo) {
  PlaySession session(beginner());
  EXPECT_FALSE(session.engine_to_move());
  EXPECT_EQ(session.undo(), std::optional<size_t>(0)) << "nothing to take back yet";
  const PlayedMove mine = session.play(read_typed_move(session.position(), "76").move);
  EXPECT_TRUE(mine.in_time);
  EXPECT_EQ(move_announcement(mine.before, mine.move, false), "You play 76: captures 10 stones.");
  ASSERT_TRUE(session.engine_to_move());
  const PlayedMove reply = session.engine_move();
  EXPECT_TRUE(mine.before.is_legal(mine.move));
  EXPECT_TRUE(reply.before.is_legal(reply.move));
  EXPECT_EQ(session.game().plies(), 2u);
  EXPECT_FALSE(session.engine_to_move());
  EXPECT_EQ(session.undo(), std::optional<size_t>(2));
  EXPECT_EQ(session.position().to_string(), Position::start(GameSpec::togyz()).to_string());
  EXPECT_THROW(session.play(-1), ParseError);
}

TEST(PlaySession, HintAndEvalAnswerUntilTheGameEnds) {
  PlaySession session(beginner(GameSpec::kalah(6, 4)), std::make_unique<FirstMovePlayer>());
  const std::optional<Hint> hint = session.hint();
  ASSERT_TRUE(hint);
  EXPECT_EQ(hint->moves.size(), 3u);
  EXPECT_NE(hint_text(session.position(), *hint).find("expected line: "), std::string::npos);
  // What `hint` answers: the solved line, when there is one, before the moves.
  const std::string answer = hint_answer_text(session.position(), hint);
  const std::string moves = hint_text(session.position(), *hint);
  ASSERT_GE(answer.size(), moves.size());
  EXPECT_EQ(answer.substr(answer.size() - moves.size()), moves);
  EXPECT_EQ(answer.size() > moves.size(), hint->solve.solved);
  ASSERT_TRUE(session.eval());
  EXPECT_TRUE(session.position().is_legal(session.eval()->best_move));
  // Both sides play their first legal move to the end.
  for (int ply = 0; ply < 500 && !session.finished(); ++ply)
    if (session.engine_to_move())
      session.engine_move();
    else
      session.play(__builtin_ctz(session.position().legal_mask()));
  ASSERT_TRUE(session.finished());
  EXPECT_FALSE(session.engine_to_move());
  EXPECT_EQ(session.read_move("1").refusal, MoveRefusal::kGameOver);
  EXPECT_FALSE(session.hint());
  EXPECT_EQ(hint_answer_text(session.position(), session.hint()), "The game is over.\n");
  EXPECT_FALSE(session.eval());
  EXPECT_EQ(prompt_text(true), "Game over (undo, save FILE, quit)> ");
  EXPECT_EQ(end_of_input_text(true), "End of input: bye.");
  EXPECT_EQ(game_result_text(session.game(), 0).rfind("Game over: South ", 0), 0u);
}

TEST(PlaySession, AnEngineThatAnswersAnIllegalMoveStopsTheGame) {
  PlaySettings s = beginner();
  s.human = 1;
  PlaySession session(s, std::make_unique<FirstMovePlayer>(9));
  EXPECT_THROW(session.engine_move(), std::logic_error);
  EXPECT_EQ(session.game().plies(), 0u);
}

TEST(PlaySession, OnAClockAFallenFlagEndsTheGameAndNothingIsTakenBack) {
  PlaySettings s = beginner();
  s.clock = ClockControl{.base_ms = 1, .increment_ms = 0};
  PlaySession session(s);
  EXPECT_EQ(session.game().tag("TimeControl"), "0.001");
  ASSERT_NE(session.clock(), nullptr);
  session.start_clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(session.flag_if_fallen(1)) << "Black's clock is not running";
  ASSERT_TRUE(session.flag_if_fallen(0));
  EXPECT_TRUE(session.finished());
  EXPECT_EQ(session.game().result(), "0-1");
  EXPECT_EQ(game_result_text(session.game(), 0),
            "Your time ran out: 0-1, the engine wins on time.\n");
  EXPECT_EQ(session.undo(), std::nullopt);
  EXPECT_EQ(undo_text(session.undo()), "On a clock there is no taking moves back.\n");
  EXPECT_EQ(clock_text(9800), "0:09.8");
  EXPECT_EQ(clock_text(3723000), "1:02:03");
}

TEST(PlaySession, TheSidesAreNamedOnTheBoard) {
  PlaySettings s = beginner();
  s.human = 1;
  const std::array<std::string, 2> names = side_names(s);
  EXPECT_EQ(names[1], "you");
  EXPECT_EQ(names[0], "engine, beginner");
  s.rating = 1400;
  EXPECT_EQ(side_names(s)[0], "engine, rated 1400");
  EXPECT_EQ(board_labels(names, nullptr), names);
  const GameClock clock(ClockControl{.base_ms = 300000, .increment_ms = 0},
                        [] { return int64_t(0); });
  EXPECT_EQ(board_labels(names, &clock),
            (std::array<std::string, 2>{"engine, beginner, 5:00 left", "you, 5:00 left"}));
  EXPECT_EQ(prompt_text(false), "Your move> ");
  EXPECT_EQ(end_of_input_text(false), "End of input: leaving the game unfinished.");
  EXPECT_EQ(moves_again_text(true), "The engine moves again.\n");
  EXPECT_EQ(moves_again_text(false), "You move again.\n");
}

TEST(PlaySession, SavingSaysWhyNot) {
  const std::string dir = test::temp_dir("play-session");
  PlaySession session(beginner());
  session.play(6);
  EXPECT_EQ(session.save("").failure, SaveFailure::kNoFile);
  EXPECT_EQ(session.save(dir).failure, SaveFailure::kIsFolder);
  const SaveOutcome no_folder = session.save(dir + "/none/game.pgn");
  EXPECT_EQ(no_folder.failure, SaveFailure::kNoFolder);
  EXPECT_EQ(no_folder.folder, dir + "/none");
  const std::string file = dir + "/game.pgn";
  const SaveOutcome saved = session.save(file);
  EXPECT_EQ(saved.failure, SaveFailure::kNone);
  EXPECT_EQ(saved.plies, 1u);
  EXPECT_EQ(save_text(file, saved), "Saved 1 ply to " + file + ".\n");
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  EXPECT_EQ(text.str(), session.record());
  EXPECT_NE(text.str().find("[Black \"KumalakZero beginner\"]"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz::cli
