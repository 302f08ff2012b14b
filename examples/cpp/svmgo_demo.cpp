// svmgo_demo.cpp — the C demo (examples/c/svmgo_demo.c) through the C++
// wrapper include/svmgo.hpp: train, save, load, predict, publish, watch.
//
//   svmgo_demo_cpp [train_file test_file]
//
// The files are LIBSVM text files; the defaults are the bundled heart_scale
// data (run from the repository root). Build, from the root:
//
//   make lib/libsvmgo.so
//   g++ -std=c++17 -Wall -Wextra -Iinclude examples/cpp/svmgo_demo.cpp
//       -Llib -lsvmgo -Wl,-rpath,'$ORIGIN/../lib' -o bin/svmgo_demo_cpp
//
// Handles are freed by destructors and failures arrive as svmgo::Error, so
// the happy path reads straight through; main prints any error's code name
// and message and exits with 1.
#include <stdlib.h> // mkdtemp (POSIX)

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "libsvm_reader.hpp"
#include "svmgo.hpp"

namespace fs = std::filesystem;

namespace {

// TempDir is a scratch directory removed with everything in it at scope exit.
class TempDir {
public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "svmgo_demo_cpp.XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("cannot create a temporary directory");
        }
        path_ = pattern;
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const fs::path &path() const { return path_; }

private:
    fs::path path_;
};

// wait_for_version polls a watched model until it serves version want: the
// watcher loads a published version in the background, shortly after
// publish returns. Until the first load, the model reports SVMGO_E_NO_MODEL.
std::uint64_t wait_for_version(const svmgo::Model &watched, std::uint64_t want)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
        try {
            std::uint64_t v = watched.version();
            if (v >= want) {
                return v;
            }
        } catch (const svmgo::Error &e) {
            if (e.code() != SVMGO_E_NO_MODEL) {
                throw;
            }
        }
        if (std::chrono::steady_clock::now() > deadline) {
            throw std::runtime_error("the watched model did not reach version " + std::to_string(want) + " in 10 s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

int run(const std::string &train_path, const std::string &test_path)
{
    if (svmgo_version_number() != SVMGO_VERSION_NUMBER) {
        throw std::runtime_error("libsvmgo.so is version " + svmgo::version_string() +
                                 ", not the version of svmgo.h");
    }
    std::cout << "libsvmgo " << svmgo::version_string() << "\n";

    const Csr train = read_libsvm(train_path);
    const Csr test = read_libsvm(test_path);
    const std::size_t nf = train.num_features;
    TempDir tmp;
    const fs::path models_dir = tmp.path() / "models";
    fs::create_directory(models_dir);

    // 1. A trainer for L2-loss SVC with a bias feature, storing rows sparse.
    svmgo::Trainer trainer("-s 1 -B 1", train.rows(), nf, train.indices.size());

    // 2. The first rows dense, the rest as CSR (indptr need not start at 0).
    const std::size_t num_dense = 5;
    std::vector<float> dense;
    for (std::size_t r = 0; r < num_dense; r++) {
        const auto row = train.dense_row(r, nf);
        dense.insert(dense.end(), row.begin(), row.end());
    }
    trainer.add_dense(train.labels.data(), dense.data(), num_dense, nf);
    trainer.add_csr(train.labels.data() + num_dense, train.indptr.data() + num_dense, train.indices.data(),
                    train.values.data(), train.rows() - num_dense);
    std::cout << "trainer holds " << trainer.num_rows() << " rows of " << nf << " features\n";

    // 3. Fit, then 4. save and load back.
    const svmgo::Model model = trainer.fit();
    std::cout << "model: " << model.num_features() << " features, " << model.num_classes() << " classes, labels";
    for (auto label : model.labels()) {
        std::cout << " " << label;
    }
    std::cout << "\n";
    const std::string model_path = (tmp.path() / "heart.svmgo").string();
    model.save(model_path);
    // The file and the model's bytes in memory are the same bytes.
    const std::vector<unsigned char> bytes = model.save_buffer();
    const svmgo::Model loaded = svmgo::Model::load_buffer(bytes.data(), bytes.size());
    if (svmgo::Model::load(model_path).num_features() != loaded.num_features()) {
        throw std::runtime_error("the saved file and save_buffer's bytes differ");
    }

    // 5. Predict the test rows with both models; they must agree.
    const auto pred = model.predict_csr(test.indptr, test.indices, test.values);
    const auto pred_loaded = loaded.predict_csr(test.indptr, test.indices, test.values);
    std::size_t correct = 0;
    for (std::size_t i = 0; i < test.rows(); i++) {
        if (pred[i] != pred_loaded[i]) {
            throw std::runtime_error("row " + std::to_string(i) + ": trained and loaded models disagree");
        }
        correct += pred[i] == test.labels[i];
    }
    const double accuracy = static_cast<double>(correct) / static_cast<double>(test.rows());
    std::printf("test accuracy %.2f%% (%zu/%zu), loaded model agrees on every row\n", 100 * accuracy, correct,
                test.rows());
    if (accuracy < 0.80) {
        throw std::runtime_error("accuracy below 80%");
    }

    // 6. Publish version 1 and watch the directory.
    const std::uint64_t v1 = model.publish(models_dir.string());
    const svmgo::Model watched = svmgo::Model::watch(models_dir.string());
    std::cout << "published version " << v1 << "; the watched handle serves version "
              << wait_for_version(watched, v1) << "\n";

    // 7. Retrain without the first 10 rows (warm start) and publish again.
    std::vector<std::size_t> first_rows;
    for (std::size_t i = 0; i < 10; i++) {
        first_rows.push_back(i);
    }
    trainer.remove(first_rows);
    const svmgo::Model retrained = trainer.fit();
    const std::uint64_t v2 = retrained.publish(models_dir.string());
    const std::uint64_t serving = wait_for_version(watched, v2);
    const std::vector<float> row = test.dense_row(0, watched.num_features());
    std::cout << "published version " << v2 << "; the watched handle serves version " << serving
              << " and predicts " << watched.predict_one(row.data(), row.size()) << " for the first test row\n";

    // 8. Misuse is an exception carrying the status code: a row one feature short.
    try {
        model.predict_one(row.data(), row.size() - 1);
        throw std::runtime_error("a short row was accepted");
    } catch (const svmgo::Error &e) {
        if (e.code() != SVMGO_E_DIMENSION) {
            throw;
        }
        std::cout << "a short row is refused: " << e.what() << "\n";
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3) {
        std::cerr << "usage: svmgo_demo_cpp [train_file test_file]\n";
        return 2;
    }
    try {
        return run(argc == 3 ? argv[1] : "examples/data/heart_scale.train",
                   argc == 3 ? argv[2] : "examples/data/heart_scale.test");
    } catch (const svmgo::Error &e) {
        std::cerr << "svmgo_demo_cpp: " << e.what() << " (status " << e.code() << ")\n";
    } catch (const std::exception &e) {
        std::cerr << "svmgo_demo_cpp: " << e.what() << "\n";
    }
    return 1;
}
