#include "train/training_checkpoint.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/atomic_file.h"

namespace kz {

void save_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt, int step,
                     const Model& model) {
  torch::serialize::OutputArchive archive, net_archive, opt_archive;
  net->save(net_archive);
  opt.save(opt_archive);
  archive.write("model", net_archive);
  archive.write("optimizer", opt_archive);
  nlohmann::json j = {{"step", step},
                      {"game", model.meta.game},
                      {"generation", model.meta.generation},
                      {"base_steps", model.meta.training_steps},
                      {"weights_checksum", std::to_string(weights_checksum(net))}};
  archive.write("kz_checkpoint", c10::IValue(j.dump()));
  const std::string temp = temp_name_for(path);
  archive.save_to(temp);
  commit_temp_file(temp, path);
}

int load_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt,
                    const Model& model, const torch::Device& device) {
  if (!std::filesystem::exists(path)) return -1;
  try {
    torch::serialize::InputArchive archive, net_archive, opt_archive;
    archive.load_from(path, device);
    c10::IValue meta;
    archive.read("kz_checkpoint", meta);
    const auto j = nlohmann::json::parse(meta.toStringRef());
    if (j.at("game").get<std::string>() != model.meta.game)
      throw std::runtime_error("checkpoint is for game " + j.at("game").get<std::string>());
    archive.read("model", net_archive);
    archive.read("optimizer", opt_archive);
    net->load(net_archive);
    opt.load(opt_archive);
    if (std::to_string(weights_checksum(net)) != j.at("weights_checksum").get<std::string>())
      throw std::runtime_error("weights checksum mismatch");
    return j.at("step").get<int>();
  } catch (const std::exception& e) {
    spdlog::warn("train: checkpoint '{}' is unusable ({}); starting from the initial weights", path,
                 std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
    return -1;
  }
}

}  // namespace kz
