// Embedding vkrt in an application through its installed package.
//   embed_app model.pte [value]   load a program, list its methods, run "forward" with every
//                                 float input filled with `value` (default 1), print the outputs
//   embed_app model.vgf           run a VGF file with the VGF API (vkrt/vgf.h) on the default
//                                 executor, then again wrapped into a program, and check that
//                                 both give the same outputs
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vkrt/evalue_format.h"
#include "vkrt/module.h"
#include "vkrt/vgf.h"

namespace {

int run_program(const char* path, float value) {
  auto module = vkrt::Module::load(path);
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

// A VGF with static input shapes: inputs filled with a byte pattern, run through a VgfSession,
// then through the program VgfModel::to_pte wraps it in; the outputs must be the same bytes.
int run_vgf(const char* path) {
  auto model = vkrt::VgfModel::load(path);
  if (!model.ok()) {
    fprintf(stderr, "load failed: %s\n", model.status().to_string().c_str());
    return 1;
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const vkrt::VgfTensorInfo& in : model->inputs()) shapes.push_back(in.shape);
  auto out_shapes = model->output_shapes(shapes);
  if (!out_shapes.ok()) {
    fprintf(stderr, "output shapes: %s\n", out_shapes.status().to_string().c_str());
    return 1;
  }
  auto make = [](vkrt::ScalarType dtype, const std::vector<int64_t>& shape, std::vector<uint8_t>& bytes,
                 uint8_t fill_from) -> vkrt::Result<vkrt::Tensor> {
    std::vector<int32_t> sizes(shape.begin(), shape.end());
    size_t n = vkrt::element_size(dtype);
    for (int32_t d : sizes) n *= size_t(d);
    bytes.resize(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = uint8_t(fill_from + i * 7);
    return vkrt::Tensor::make(dtype, sizes, bytes.data());
  };
  std::vector<std::vector<uint8_t>> in_bytes(shapes.size()), out_bytes(out_shapes->size());
  std::vector<vkrt::Tensor> in_tensors, out_tensors;
  for (size_t i = 0; i < shapes.size(); ++i) in_tensors.push_back(*make(model->inputs()[i].dtype, shapes[i], in_bytes[i], 3));
  for (size_t j = 0; j < out_shapes->size(); ++j)
    out_tensors.push_back(*make(model->outputs()[j].dtype, (*out_shapes)[j], out_bytes[j], 0));
  std::vector<const vkrt::Tensor*> inputs;
  std::vector<vkrt::Tensor*> outputs;
  for (auto& t : in_tensors) inputs.push_back(&t);
  for (auto& t : out_tensors) outputs.push_back(&t);

  // The defaults, with the VKRT_VULKAN_* environment variables applied (vkrt/vgf.h).
  auto options = vkrt::parse_vgf_options({});
  if (!options.ok()) {
    fprintf(stderr, "options: %s\n", options.status().to_string().c_str());
    return 1;
  }
  auto session = vkrt::VgfSession::create(*model, *options);
  if (!session.ok()) {
    fprintf(stderr, "prepare: %s\n", session.status().to_string().c_str());
    return 1;
  }
  for (const auto& p : (*session)->placements()) printf("%s\n", p.describe().c_str());
  auto s = (*session)->run(inputs, outputs);
  if (!s.is_ok()) {
    fprintf(stderr, "run: %s\n", s.to_string().c_str());
    return 1;
  }

  auto pte = model->to_pte(shapes);
  if (!pte.ok()) return fprintf(stderr, "to_pte: %s\n", pte.status().to_string().c_str()), 1;
  auto module = vkrt::Module::load_from_buffer(*pte);
  if (!module.ok()) return fprintf(stderr, "load: %s\n", module.status().to_string().c_str()), 1;
  auto method = (*module)->load_method("forward");
  if (!method.ok()) return fprintf(stderr, "forward: %s\n", method.status().to_string().c_str()), 1;
  for (size_t i = 0; i < in_tensors.size(); ++i) {
    s = (*method)->set_input(i, vkrt::EValue::from_tensor(&in_tensors[i]));
    if (!s.is_ok()) return fprintf(stderr, "set_input: %s\n", s.to_string().c_str()), 1;
  }
  s = (*method)->execute();
  if (!s.is_ok()) return fprintf(stderr, "execute: %s\n", s.to_string().c_str()), 1;
  for (size_t j = 0; j < out_tensors.size(); ++j) {
    const vkrt::Tensor& wrapped = (*method)->output(j).to_tensor();
    if (wrapped.nbytes() != out_bytes[j].size() || std::memcmp(wrapped.data(), out_bytes[j].data(), wrapped.nbytes())) {
      printf("VGF output %zu differs between the session and the wrapped program\n", j);
      return 1;
    }
    printf("output %zu: %s\n", j, vkrt::format_evalue(vkrt::EValue::from_tensor(&out_tensors[j])).c_str());
  }
  printf("VGF outputs agree: session and wrapped program\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s model.pte [value] | model.vgf\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".vgf") == 0) return run_vgf(argv[1]);
  return run_program(argv[1], argc > 2 ? float(atof(argv[2])) : 1.0f);
}
