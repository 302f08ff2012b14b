// svmgo_kernel_demo.cpp — the C kernel demo (examples/c/svmgo_kernel_demo.c)
// through the C++ wrapper include/svmgo.hpp: an RBF C-SVC with probability
// estimates, trained, saved, loaded, asked for labels, decision values and
// class probabilities, then grown by more rows and re-fitted warm.
//
//   svmgo_kernel_demo_cpp [train_file test_file [options]]
//
// The files are LIBSVM text files; the defaults are the bundled heart_scale
// data (run from the repository root). options are svm-train's, by default
// "-t 2 -c 4 -b 1": RBF kernel exp(-gamma |u - v|^2) with svm-train's gamma
// (1 / number of features), C = 4, probability estimates. A trainer reads
// svm-train's syntax as soon as the options hold any of -t -g -d -r -m -h
// -b; without them, LIBLINEAR's (a linear model). Build, from the root:
//
//   make lib/libsvmgo.so
//   g++ -std=c++17 -Wall -Wextra -Iinclude examples/cpp/svmgo_kernel_demo.cpp
//       -Llib -lsvmgo -Wl,-rpath,'$ORIGIN/../lib' -o bin/svmgo_kernel_demo_cpp
//
// The two "Accuracy = ..." lines are svm-predict's: `make test-cpp` checks
// them against `svmgo train OPTIONS` then `svmgo predict` and `svmgo predict
// -b 1`, run on the same files in the same invocation. Handles are freed by
// destructors and failures arrive as svmgo::Error; main prints any error's
// code name and message and exits with 1.
#include <stdlib.h> // mkdtemp (POSIX)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "libsvm_reader.hpp"
#include "svmgo.hpp"

namespace fs = std::filesystem;

namespace {

// How many test rows have their outputs printed, and how many values of each
// output (a 10-class model has 45 decision values a row).
constexpr std::size_t num_shown_rows = 3;
constexpr std::size_t num_shown_values = 4;

// TempDir is a scratch directory removed with everything in it at scope exit.
class TempDir {
public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "svmgo_kernel_demo_cpp.XXXXXX").string();
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

// count_equal counts the positions where a and b hold the same value.
std::size_t count_equal(const std::vector<double> &a, const std::vector<double> &b)
{
    std::size_t k = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); i++) {
        k += a[i] == b[i];
    }
    return k;
}

// print_values prints the first num_shown_values of the n values at v, as
// "P(label) = value" when labels is given, then how many there are in all if
// some were left out.
void print_values(const double *v, std::size_t n, const std::vector<std::int32_t> *labels = nullptr)
{
    for (std::size_t j = 0; j < n && j < num_shown_values; j++) {
        if (labels != nullptr) {
            std::printf(" P(%d) = %g", static_cast<int>((*labels)[j]), v[j]);
        } else {
            std::printf(" %g", v[j]);
        }
    }
    if (n > num_shown_values) {
        std::printf(" ... (%zu in all)", n);
    }
}

// print_accuracy prints svm-predict's accuracy line, then what it is of.
void print_accuracy(std::size_t correct, std::size_t total, const char *of)
{
    std::printf("Accuracy = %g%% (%zu/%zu) of the %s\n", 100.0 * static_cast<double>(correct) /
                static_cast<double>(total), correct, total, of);
}

int run(const std::string &train_path, const std::string &test_path, const std::string &options)
{
    if (svmgo_version_number() != SVMGO_VERSION_NUMBER) {
        throw std::runtime_error("libsvmgo.so is version " + svmgo::version_string() +
                                 ", not the version of svmgo.h");
    }
    const Csr train = read_libsvm(train_path);
    const Csr test = read_libsvm(test_path);
    const std::size_t n = test.rows();
    TempDir tmp;

    // 1. A kernel trainer with svm-train's options and a fixed capacity:
    //    room for the training rows and, for step 6, the test rows (so the
    //    larger feature count of the two), stored sparse. Gamma, when the
    //    options leave it out, is 1 / the number of features of the rows
    //    held, as svm-train computes it from its file.
    svmgo::Trainer trainer(options, train.rows() + n, std::max(train.num_features, test.num_features),
                           train.indices.size() + test.indices.size());

    // 2. The training rows in (CSR, one call) and a fit.
    trainer.add_csr(train.labels, train.indptr, train.indices, train.values);
    const svmgo::Model model = trainer.fit();

    // 3. What the model is: a kernel C-SVC gives one label a row, one
    //    decision value per pair of classes (one in all for two classes:
    //    positive means the first label) and, trained with -b 1, one
    //    probability per class; both in the order of labels().
    if (model.kind() != svmgo::Kind::kernel_svc) {
        throw std::runtime_error("options \"" + options + "\" train no kernel classifier; give svm-train's -s 0 "
                                 "and a kernel (-t)");
    }
    const std::vector<std::int32_t> labels = model.labels();
    const std::size_t num_dec = model.num_decision_values();
    const bool has_prob = model.has_probability();
    std::printf("options \"%s\": kernel SVC on %zu rows, %zu classes (labels", options.c_str(), train.rows(),
                labels.size());
    for (auto label : labels) {
        std::printf(" %d", static_cast<int>(label));
    }
    std::printf("), %zu decision value(s) a row, probabilities: %s\n", num_dec, has_prob ? "yes" : "no");

    // 4. Save it and load it back; both give the same labels.
    const std::string model_path = (tmp.path() / "heart.svmgo").string();
    model.save(model_path);
    const svmgo::Model loaded = svmgo::Model::load(model_path);
    const std::vector<double> pred = model.predict_csr(test.indptr, test.indices, test.values);
    if (count_equal(pred, loaded.predict_csr(test.indptr, test.indices, test.values)) != n) {
        throw std::runtime_error("the saved and loaded models predict different labels");
    }

    // 5. Decision values and probabilities of all test rows, one call each,
    //    num_dec (or labels.size()) values a row, row after row. Models
    //    trained without -b 1 refuse probabilities (SVMGO_E_UNSUPPORTED).
    using svmgo::Output;
    const auto dec = loaded.predict_csr(test.indptr, test.indices, test.values, Output::decision_values);
    std::vector<double> prob, prob_label;
    if (has_prob) {
        prob = loaded.predict_csr(test.indptr, test.indices, test.values, Output::probability);
        // svm-predict -b 1 labels a row with its most probable class, which
        // can differ from the label of the decision values (the votes).
        for (std::size_t i = 0; i < n; i++) {
            const auto row = prob.begin() + static_cast<std::ptrdiff_t>(i * labels.size());
            prob_label.push_back(labels[std::max_element(row, row + static_cast<std::ptrdiff_t>(labels.size())) - row]);
        }
    }
    for (std::size_t i = 0; i < n && i < num_shown_rows; i++) {
        std::printf("test row %zu: class %g, predicted %g, decision value(s)", i + 1, test.labels[i], pred[i]);
        print_values(&dec[i * num_dec], num_dec);
        if (has_prob) {
            std::printf(", probabilities");
            print_values(&prob[i * labels.size()], labels.size(), &labels);
        }
        std::printf("\n");
    }
    print_accuracy(count_equal(pred, test.labels), n, "labels");
    if (has_prob) {
        print_accuracy(count_equal(prob_label, test.labels), n, "most probable classes");
    }

    // 6. The true classes of predicted rows often become known later: add
    //    those rows and re-fit. The fit starts from the previous solution
    //    (its dual variables; the new rows' start at 0) and reaches the
    //    optimum a cold start would, to the solver's tolerance, with less
    //    work.
    trainer.add_csr(test.labels, test.indptr, test.indices, test.values);
    const svmgo::Model retrained = trainer.fit();
    std::printf("warm re-fit on %zu rows, the test rows included: it classifies %zu of these %zu correctly\n",
                trainer.num_rows(), count_equal(retrained.predict_csr(test.indptr, test.indices, test.values),
                                                test.labels),
                n);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3 && argc != 4) {
        std::cerr << "usage: svmgo_kernel_demo_cpp [train_file test_file [svm-train options]]\n";
        return 2;
    }
    try {
        return run(argc >= 3 ? argv[1] : "examples/data/heart_scale.train",
                   argc >= 3 ? argv[2] : "examples/data/heart_scale.test", argc == 4 ? argv[3] : "-t 2 -c 4 -b 1");
    } catch (const svmgo::Error &e) {
        std::cerr << "svmgo_kernel_demo_cpp: " << e.what() << " (status " << e.code() << ")\n";
    } catch (const std::exception &e) {
        std::cerr << "svmgo_kernel_demo_cpp: " << e.what() << "\n";
    }
    return 1;
}
