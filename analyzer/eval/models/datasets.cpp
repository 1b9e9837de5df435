// Models of the datasets library: its loaders and builders, and the methods of Dataset,
// DatasetDict and IterableDataset that return a dataset. None of them returns None (they
// raise instead), which rules that ask "may this argument be None?" rely on.
#include <set>
#include <string>
#include <string_view>

#include "analyzer/eval/models/library_models.hpp"

namespace trl::pyeval {

// The datasets library's loaders and builders (the names and prefixes registry.cpp gives this
// model): they return a dataset or raise (datasets load.py load_dataset / load_from_disk,
// arrow_dataset.py Dataset.from_* and dataset_dict.py DatasetDict.from_*;
// concatenate_datasets and interleave_datasets in combine.py).
ValueRef dataset_loader(Exec& ex, const LibraryCall& call) {
  ex.eval_args(call.e, call.scope, call.depth);
  return not_none_value(call.e.span);
}

// Methods of Dataset, DatasetDict and IterableDataset that return a dataset (or a dict of
// them), never None (datasets arrow_dataset.py, dataset_dict.py, iterable_dataset.py), on a
// value known not to be None (a dataset, a split of one). Other methods are declined.
ValueRef dataset_method(Exec& ex, const MethodCall& call) {
  static const std::set<std::string, std::less<>> kMethods = {"train_test_split",
                                                              "select",
                                                              "map",
                                                              "filter",
                                                              "shuffle",
                                                              "remove_columns",
                                                              "rename_column",
                                                              "rename_columns",
                                                              "select_columns",
                                                              "with_format",
                                                              "with_transform",
                                                              "sort",
                                                              "flatten",
                                                              "cast",
                                                              "cast_column",
                                                              "add_column",
                                                              "take",
                                                              "skip",
                                                              "shard",
                                                              "class_encode_column",
                                                              "batch",
                                                              "unique"};
  if (!kMethods.count(call.fn.name)) return nullptr;
  ex.eval_args(call.e, call.scope, call.depth);
  return not_none_value(call.e.span);
}

}  // namespace trl::pyeval
