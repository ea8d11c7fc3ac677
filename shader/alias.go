package shader

import "github.com/gfxcuda/gfxcuda/spirv"

// SPIR-V reflection lives in package spirv, which links no compiler; these
// names keep it reachable from here for programs that compile shaders.

// Reflection types, the same types as package spirv's.
type (
	// Module is a SPIR-V module and what reflection found in it.
	Module = spirv.Module
	// SPIRVVersion is the version word of a SPIR-V header.
	SPIRVVersion = spirv.Version
	// EntryPoint is an entry point of a module.
	EntryPoint = spirv.EntryPoint
	// Resource is a descriptor-bound variable of a module.
	Resource = spirv.Resource
	// Member is a member of a buffer or push constant block.
	Member = spirv.Member
	// PushConstantBlock is a module's push constant block.
	PushConstantBlock = spirv.PushConstantBlock
	// Element describes the elements of a buffer's runtime-sized array.
	Element = spirv.Element
	// ResourceKind is the kind of descriptor a resource is bound through.
	ResourceKind = spirv.ResourceKind
	// ImageDim is the dimensionality of an image.
	ImageDim = spirv.ImageDim
	// ScalarType is the component type of the texels an image returns.
	ScalarType = spirv.ScalarType
	// ImageFormat is a SPIR-V image format.
	ImageFormat = spirv.ImageFormat
	// ExecutionModel is the execution model (stage) of an entry point.
	ExecutionModel = spirv.ExecutionModel
	// Severity is the severity of a diagnostic.
	Severity = spirv.Severity
	// Diagnostic is one message from the compiler.
	Diagnostic = spirv.Diagnostic
)

// Constants of package spirv's types; see there for their meaning.
const (
	UniformBuffer         = spirv.UniformBuffer
	StorageBuffer         = spirv.StorageBuffer
	StorageImage          = spirv.StorageImage
	SampledImage          = spirv.SampledImage
	Sampler               = spirv.Sampler
	CombinedImageSampler  = spirv.CombinedImageSampler
	UniformTexelBuffer    = spirv.UniformTexelBuffer
	StorageTexelBuffer    = spirv.StorageTexelBuffer
	InputAttachment       = spirv.InputAttachment
	AccelerationStructure = spirv.AccelerationStructure
	ConstantBuffer        = spirv.ConstantBuffer
	SeparateImage         = spirv.SeparateImage
	DimNone               = spirv.DimNone
	Dim1D                 = spirv.Dim1D
	Dim2D                 = spirv.Dim2D
	Dim3D                 = spirv.Dim3D
	DimCube               = spirv.DimCube
	DimRect               = spirv.DimRect
	DimBuffer             = spirv.DimBuffer
	DimSubpassData        = spirv.DimSubpassData
	ScalarUnknown         = spirv.ScalarUnknown
	ScalarFloat           = spirv.ScalarFloat
	ScalarInt             = spirv.ScalarInt
	ScalarUint            = spirv.ScalarUint
	FormatUnknown         = spirv.FormatUnknown
	FormatRgba32f         = spirv.FormatRgba32f
	FormatRgba16f         = spirv.FormatRgba16f
	FormatR32f            = spirv.FormatR32f
	FormatRgba8           = spirv.FormatRgba8
	FormatRgba8Snorm      = spirv.FormatRgba8Snorm
	FormatRg32f           = spirv.FormatRg32f
	FormatRg16f           = spirv.FormatRg16f
	FormatR11fG11fB10f    = spirv.FormatR11fG11fB10f
	FormatR16f            = spirv.FormatR16f
	FormatRgba16          = spirv.FormatRgba16
	FormatRgb10A2         = spirv.FormatRgb10A2
	FormatRg16            = spirv.FormatRg16
	FormatRg8             = spirv.FormatRg8
	FormatR16             = spirv.FormatR16
	FormatR8              = spirv.FormatR8
	FormatRgba16Snorm     = spirv.FormatRgba16Snorm
	FormatRg16Snorm       = spirv.FormatRg16Snorm
	FormatRg8Snorm        = spirv.FormatRg8Snorm
	FormatR16Snorm        = spirv.FormatR16Snorm
	FormatR8Snorm         = spirv.FormatR8Snorm
	FormatRgba32i         = spirv.FormatRgba32i
	FormatRgba16i         = spirv.FormatRgba16i
	FormatRgba8i          = spirv.FormatRgba8i
	FormatR32i            = spirv.FormatR32i
	FormatRg32i           = spirv.FormatRg32i
	FormatRg16i           = spirv.FormatRg16i
	FormatRg8i            = spirv.FormatRg8i
	FormatR16i            = spirv.FormatR16i
	FormatR8i             = spirv.FormatR8i
	FormatRgba32ui        = spirv.FormatRgba32ui
	FormatRgba16ui        = spirv.FormatRgba16ui
	FormatRgba8ui         = spirv.FormatRgba8ui
	FormatR32ui           = spirv.FormatR32ui
	FormatRgb10a2ui       = spirv.FormatRgb10a2ui
	FormatRg32ui          = spirv.FormatRg32ui
	FormatRg16ui          = spirv.FormatRg16ui
	FormatRg8ui           = spirv.FormatRg8ui
	FormatR16ui           = spirv.FormatR16ui
	FormatR8ui            = spirv.FormatR8ui
	FormatR64ui           = spirv.FormatR64ui
	FormatR64i            = spirv.FormatR64i
	ModelVertex           = spirv.ModelVertex
	ModelTessControl      = spirv.ModelTessControl
	ModelTessEvaluation   = spirv.ModelTessEvaluation
	ModelGeometry         = spirv.ModelGeometry
	ModelFragment         = spirv.ModelFragment
	ModelGLCompute        = spirv.ModelGLCompute
	ModelKernel           = spirv.ModelKernel
	ModelTaskNV           = spirv.ModelTaskNV
	ModelMeshNV           = spirv.ModelMeshNV
	ModelRayGeneration    = spirv.ModelRayGeneration
	ModelIntersection     = spirv.ModelIntersection
	ModelAnyHit           = spirv.ModelAnyHit
	ModelClosestHit       = spirv.ModelClosestHit
	ModelMiss             = spirv.ModelMiss
	ModelCallable         = spirv.ModelCallable
	ModelTaskEXT          = spirv.ModelTaskEXT
	ModelMeshEXT          = spirv.ModelMeshEXT
	SeverityError         = spirv.SeverityError
	SeverityWarning       = spirv.SeverityWarning
)

// ErrInvalidSPIRV is wrapped by the errors Reflect and Compile return for
// malformed SPIR-V binaries. It is spirv.ErrInvalid.
var ErrInvalidSPIRV = spirv.ErrInvalid

// Reflect parses a SPIR-V binary, of either byte order, and describes its
// entry points and resources; it is spirv.Reflect.
func Reflect(b []byte) (*Module, error) { return spirv.Reflect(b) }

// IsSPIRV reports whether b starts with the SPIR-V magic number, in either
// byte order; it is spirv.HasMagic.
func IsSPIRV(b []byte) bool { return spirv.HasMagic(b) }
