package spirv

import "fmt"

// ResourceKind is the kind of descriptor a resource is bound through.
type ResourceKind int

// Resource kinds. Each maps to one VkDescriptorType (see VkDescriptorType).
const (
	// UniformBuffer is a uniform (constant) buffer: an HLSL cbuffer or
	// ConstantBuffer<T>, a GLSL uniform block.
	UniformBuffer ResourceKind = iota + 1
	// StorageBuffer is a storage buffer: HLSL StructuredBuffer,
	// RWStructuredBuffer, ByteAddressBuffer and RWByteAddressBuffer, a GLSL
	// buffer block. Resource.ReadOnly tells the read-only ones apart.
	StorageBuffer
	// StorageImage is a read-write image: HLSL RWTexture*, GLSL image*.
	StorageImage
	// SampledImage is an image sampled through a separate sampler: HLSL
	// Texture*, GLSL texture*.
	SampledImage
	// Sampler is a sampler: HLSL SamplerState, GLSL sampler.
	Sampler
	// CombinedImageSampler is an image and sampler in one descriptor: GLSL
	// sampler2D and the like.
	CombinedImageSampler
	// UniformTexelBuffer is a read-only typed buffer: HLSL Buffer<T>, GLSL
	// samplerBuffer/textureBuffer.
	UniformTexelBuffer
	// StorageTexelBuffer is a read-write typed buffer: HLSL RWBuffer<T>,
	// GLSL imageBuffer.
	StorageTexelBuffer
	// InputAttachment is a subpass input.
	InputAttachment
	// AccelerationStructure is a ray-tracing acceleration structure.
	AccelerationStructure

	// ConstantBuffer is another name for UniformBuffer.
	ConstantBuffer = UniformBuffer
	// SeparateImage is another name for SampledImage (a texture without a
	// sampler, such as HLSL's Texture2D).
	SeparateImage = SampledImage
)

var kindNames = map[ResourceKind]string{
	UniformBuffer:         "UniformBuffer",
	StorageBuffer:         "StorageBuffer",
	StorageImage:          "StorageImage",
	SampledImage:          "SampledImage",
	Sampler:               "Sampler",
	CombinedImageSampler:  "CombinedImageSampler",
	UniformTexelBuffer:    "UniformTexelBuffer",
	StorageTexelBuffer:    "StorageTexelBuffer",
	InputAttachment:       "InputAttachment",
	AccelerationStructure: "AccelerationStructure",
}

// String returns the kind's name, for example "StorageBuffer".
func (k ResourceKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ResourceKind(%d)", int(k))
}

// VkDescriptorType returns the VkDescriptorType value a descriptor set
// layout binding for this kind of resource uses, or -1 for an unknown kind.
func (k ResourceKind) VkDescriptorType() int {
	switch k {
	case Sampler:
		return 0 // VK_DESCRIPTOR_TYPE_SAMPLER
	case CombinedImageSampler:
		return 1 // VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
	case SampledImage:
		return 2 // VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE
	case StorageImage:
		return 3 // VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
	case UniformTexelBuffer:
		return 4 // VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
	case StorageTexelBuffer:
		return 5 // VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
	case UniformBuffer:
		return 6 // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
	case StorageBuffer:
		return 7 // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	case InputAttachment:
		return 10 // VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT
	case AccelerationStructure:
		return 1000150000 // VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR
	}
	return -1
}

// IsBuffer reports whether the kind is a uniform or storage buffer, whose
// Resource carries a layout (Size, Stride, Members).
func (k ResourceKind) IsBuffer() bool { return k == UniformBuffer || k == StorageBuffer }

// IsImage reports whether the kind carries image properties (Dim, Arrayed,
// Format, ...): images, combined image samplers and texel buffers.
func (k ResourceKind) IsImage() bool {
	switch k {
	case StorageImage, SampledImage, CombinedImageSampler, UniformTexelBuffer, StorageTexelBuffer, InputAttachment:
		return true
	}
	return false
}

// ImageDim is the dimensionality of an image.
type ImageDim int

// Image dimensionalities. DimNone is used for resources that are not images.
const (
	DimNone ImageDim = iota
	Dim1D
	Dim2D
	Dim3D
	DimCube
	DimRect
	DimBuffer
	DimSubpassData
)

// String returns "1D", "2D", "3D", "Cube", "Rect", "Buffer", "SubpassData"
// or "None".
func (d ImageDim) String() string {
	switch d {
	case DimNone:
		return "None"
	case Dim1D:
		return "1D"
	case Dim2D:
		return "2D"
	case Dim3D:
		return "3D"
	case DimCube:
		return "Cube"
	case DimRect:
		return "Rect"
	case DimBuffer:
		return "Buffer"
	case DimSubpassData:
		return "SubpassData"
	}
	return fmt.Sprintf("ImageDim(%d)", int(d))
}

// ScalarType is the component type of the texels an image returns.
type ScalarType int

// Scalar types. ScalarUnknown is used for non-images and void-typed images;
// ScalarBool only for specialization constants (SpecConstant.Type).
const (
	ScalarUnknown ScalarType = iota
	ScalarFloat
	ScalarInt
	ScalarUint
	ScalarBool
)

// String returns "float", "int", "uint", "bool" or "unknown".
func (s ScalarType) String() string {
	switch s {
	case ScalarFloat:
		return "float"
	case ScalarInt:
		return "int"
	case ScalarUint:
		return "uint"
	case ScalarBool:
		return "bool"
	}
	return "unknown"
}

// ImageFormat is a SPIR-V image format. Its values are those of the SPIR-V
// ImageFormat enumeration; FormatUnknown (0) is used for sampled images and
// storage images declared without a format.
type ImageFormat uint32

// Image formats, in SPIR-V's order.
const (
	FormatUnknown ImageFormat = iota
	FormatRgba32f
	FormatRgba16f
	FormatR32f
	FormatRgba8
	FormatRgba8Snorm
	FormatRg32f
	FormatRg16f
	FormatR11fG11fB10f
	FormatR16f
	FormatRgba16
	FormatRgb10A2
	FormatRg16
	FormatRg8
	FormatR16
	FormatR8
	FormatRgba16Snorm
	FormatRg16Snorm
	FormatRg8Snorm
	FormatR16Snorm
	FormatR8Snorm
	FormatRgba32i
	FormatRgba16i
	FormatRgba8i
	FormatR32i
	FormatRg32i
	FormatRg16i
	FormatRg8i
	FormatR16i
	FormatR8i
	FormatRgba32ui
	FormatRgba16ui
	FormatRgba8ui
	FormatR32ui
	FormatRgb10a2ui
	FormatRg32ui
	FormatRg16ui
	FormatRg8ui
	FormatR16ui
	FormatR8ui
	FormatR64ui
	FormatR64i
)

var formatInfo = [...]struct {
	name string
	vk   int
}{
	FormatUnknown:      {"Unknown", 0},
	FormatRgba32f:      {"Rgba32f", 109},
	FormatRgba16f:      {"Rgba16f", 97},
	FormatR32f:         {"R32f", 100},
	FormatRgba8:        {"Rgba8", 37},
	FormatRgba8Snorm:   {"Rgba8Snorm", 38},
	FormatRg32f:        {"Rg32f", 103},
	FormatRg16f:        {"Rg16f", 83},
	FormatR11fG11fB10f: {"R11fG11fB10f", 122},
	FormatR16f:         {"R16f", 76},
	FormatRgba16:       {"Rgba16", 91},
	FormatRgb10A2:      {"Rgb10A2", 64},
	FormatRg16:         {"Rg16", 77},
	FormatRg8:          {"Rg8", 16},
	FormatR16:          {"R16", 70},
	FormatR8:           {"R8", 9},
	FormatRgba16Snorm:  {"Rgba16Snorm", 92},
	FormatRg16Snorm:    {"Rg16Snorm", 78},
	FormatRg8Snorm:     {"Rg8Snorm", 17},
	FormatR16Snorm:     {"R16Snorm", 71},
	FormatR8Snorm:      {"R8Snorm", 10},
	FormatRgba32i:      {"Rgba32i", 108},
	FormatRgba16i:      {"Rgba16i", 96},
	FormatRgba8i:       {"Rgba8i", 42},
	FormatR32i:         {"R32i", 99},
	FormatRg32i:        {"Rg32i", 102},
	FormatRg16i:        {"Rg16i", 82},
	FormatRg8i:         {"Rg8i", 21},
	FormatR16i:         {"R16i", 75},
	FormatR8i:          {"R8i", 14},
	FormatRgba32ui:     {"Rgba32ui", 107},
	FormatRgba16ui:     {"Rgba16ui", 95},
	FormatRgba8ui:      {"Rgba8ui", 41},
	FormatR32ui:        {"R32ui", 98},
	FormatRgb10a2ui:    {"Rgb10a2ui", 68},
	FormatRg32ui:       {"Rg32ui", 101},
	FormatRg16ui:       {"Rg16ui", 81},
	FormatRg8ui:        {"Rg8ui", 20},
	FormatR16ui:        {"R16ui", 74},
	FormatR8ui:         {"R8ui", 13},
	FormatR64ui:        {"R64ui", 110},
	FormatR64i:         {"R64i", 111},
}

// String returns the format's SPIR-V name, for example "Rgba32f".
func (f ImageFormat) String() string {
	if int(f) < len(formatInfo) {
		return formatInfo[f].name
	}
	return fmt.Sprintf("ImageFormat(%d)", uint32(f))
}

// VkFormat returns the matching VkFormat value, or 0
// (VK_FORMAT_UNDEFINED) for FormatUnknown and unknown formats.
func (f ImageFormat) VkFormat() int {
	if int(f) < len(formatInfo) {
		return formatInfo[f].vk
	}
	return 0
}

// ExecutionModel is the SPIR-V execution model of an entry point. Its values
// are those of the SPIR-V ExecutionModel enumeration.
type ExecutionModel uint32

// Execution models.
const (
	ModelVertex         ExecutionModel = 0
	ModelTessControl    ExecutionModel = 1
	ModelTessEvaluation ExecutionModel = 2
	ModelGeometry       ExecutionModel = 3
	ModelFragment       ExecutionModel = 4
	ModelGLCompute      ExecutionModel = 5
	ModelKernel         ExecutionModel = 6
	ModelTaskNV         ExecutionModel = 5267
	ModelMeshNV         ExecutionModel = 5268
	ModelRayGeneration  ExecutionModel = 5313
	ModelIntersection   ExecutionModel = 5314
	ModelAnyHit         ExecutionModel = 5315
	ModelClosestHit     ExecutionModel = 5316
	ModelMiss           ExecutionModel = 5317
	ModelCallable       ExecutionModel = 5318
	ModelTaskEXT        ExecutionModel = 5364
	ModelMeshEXT        ExecutionModel = 5365
)

var modelNames = map[ExecutionModel]string{
	ModelVertex:         "Vertex",
	ModelTessControl:    "TessellationControl",
	ModelTessEvaluation: "TessellationEvaluation",
	ModelGeometry:       "Geometry",
	ModelFragment:       "Fragment",
	ModelGLCompute:      "GLCompute",
	ModelKernel:         "Kernel",
	ModelTaskNV:         "TaskNV",
	ModelMeshNV:         "MeshNV",
	ModelRayGeneration:  "RayGeneration",
	ModelIntersection:   "Intersection",
	ModelAnyHit:         "AnyHit",
	ModelClosestHit:     "ClosestHit",
	ModelMiss:           "Miss",
	ModelCallable:       "Callable",
	ModelTaskEXT:        "TaskEXT",
	ModelMeshEXT:        "MeshEXT",
}

// String returns the model's SPIR-V name, for example "GLCompute".
func (m ExecutionModel) String() string {
	if s, ok := modelNames[m]; ok {
		return s
	}
	return fmt.Sprintf("ExecutionModel(%d)", uint32(m))
}

// EntryPoint is an OpEntryPoint of a module.
type EntryPoint struct {
	Name  string
	Model ExecutionModel

	// LocalSize is the workgroup size of a compute entry point, from its
	// LocalSize or LocalSizeId execution mode or the WorkgroupSize built-in
	// constant, which takes precedence; zero when none is declared.
	LocalSize [3]uint32
	// LocalSizeSpecID holds, for each dimension of LocalSize that a
	// specialization constant sets, that constant's SpecId, and -1 for the
	// others. LocalSize then holds the constant's default value.
	LocalSizeSpecID [3]int32
}

// Member is a member of a buffer or push constant block.
type Member struct {
	Name   string
	Offset uint32 // byte offset in the block
	Size   uint32 // byte size; 0 for a runtime-sized array
}

// Resource is a variable bound through a descriptor set.
type Resource struct {
	// Name is the variable's name, or when that is empty (a GLSL block
	// without an instance name, an HLSL cbuffer) the name of its block type.
	Name string
	// TypeName is the name of the block struct type for buffers, and
	// usually empty for other kinds.
	TypeName string
	Kind     ResourceKind
	Set      uint32
	Binding  uint32
	// ArraySize is the number of descriptors: 1 for a single resource, the
	// array length for an array of resources, 0 for a runtime-sized one.
	ArraySize uint32
	// ReadOnly reports that the shader cannot write through the resource:
	// always true for uniform buffers, samplers, sampled images and uniform
	// texel buffers; for storage buffers when the variable or every member
	// of its block is NonWritable (HLSL StructuredBuffer, ByteAddressBuffer,
	// GLSL readonly); for storage images and texel buffers when the
	// variable is NonWritable.
	ReadOnly bool
	// WriteOnly reports that the variable, or every member of its block,
	// is NonReadable (GLSL writeonly).
	WriteOnly bool

	// Image properties; zero for kinds other than images, combined image
	// samplers and texel buffers.
	Dim          ImageDim
	Arrayed      bool
	Multisampled bool
	Depth        bool        // declared as a depth image
	Format       ImageFormat // the declared format (storage images, texel buffers)
	SampledType  ScalarType  // the component type of texels

	// Buffer layout; zero for kinds other than buffers. Size is the size of
	// the block struct, the end of its last member, not counting a trailing
	// runtime-sized array. Stride is the ArrayStride of that trailing array
	// (the element stride of an HLSL StructuredBuffer), or 0 if there is
	// none. A binding must cover at least Size + n*Stride bytes for n
	// elements.
	Size    uint32
	Stride  uint32
	Members []Member
}

// PushConstantBlock describes the push constant block of a module.
type PushConstantBlock struct {
	Name     string // the variable's name, or its block type's
	TypeName string // the block struct type's name
	// Offset is the smallest member offset and Size the end of the last
	// member (max of offset+size), so the push constant range the block
	// needs is [Offset, Size).
	Offset  uint32
	Size    uint32
	Members []Member
}
