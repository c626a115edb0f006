// Embedding vkrt in an application: load a program, list its methods, run "forward" on an input
// the app provides, read the output. Usage: embed_app model.pte [value]
// (every input tensor is filled with `value`, default 1).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "vkrt/evalue_format.h"
#include "vkrt/module.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s model.pte [value]\n", argv[0]);
    return 2;
  }
  const float value = argc > 2 ? float(atof(argv[2])) : 1.0f;

  auto module = vkrt::Module::load(argv[1]);
  if (!module.ok()) {
    fprintf(stderr, "load failed: %s\n", module.status().to_string().c_str());
    return 1;
  }
  for (const auto& name : (*module)->method_names()) printf("method: %s\n", name.c_str());

  auto method = (*module)->load_method("forward");
  if (!method.ok()) {
    fprintf(stderr, "forward: %s\n", method.status().to_string().c_str());
    return 1;
  }
  vkrt::Method& m = **method;

  // The app owns its input memory; planned inputs are copied in, others are used in place.
  std::vector<std::vector<float>> buffers(m.num_inputs());
  std::vector<vkrt::Tensor> tensors(m.num_inputs());
  for (size_t i = 0; i < m.num_inputs(); ++i) {
    const vkrt::ValueInfo& info = m.meta().inputs[i];
    if (info.tag != vkrt::Tag::Tensor || info.dtype != vkrt::ScalarType::Float) {
      fprintf(stderr, "input %zu is not a float tensor; this example only feeds floats\n", i);
      return 1;
    }
    buffers[i].assign(info.nbytes / sizeof(float), value);
    auto t = vkrt::Tensor::make(info.dtype, info.sizes, info.dim_order, buffers[i].data());
    if (!t.ok()) return 1;
    tensors[i] = *t;
    auto s = m.set_input(i, vkrt::EValue::from_tensor(&tensors[i]));
    if (!s.is_ok()) {
      fprintf(stderr, "set_input %zu: %s\n", i, s.to_string().c_str());
      return 1;
    }
  }
  auto s = m.execute();
  if (!s.is_ok()) {
    fprintf(stderr, "execute: %s\n", s.to_string().c_str());
    return 1;
  }
  for (size_t i = 0; i < m.num_outputs(); ++i) printf("output %zu: %s\n", i, vkrt::format_evalue(m.output(i)).c_str());
  return 0;
}
