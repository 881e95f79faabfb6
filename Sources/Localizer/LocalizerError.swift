/// Why the localizer could not run on an input.
///
/// One error type for the vision layer. Not finding a pose is *not* an error:
/// it is a ``LocalizationResult`` with `localized == false` and a reason.
public struct LocalizerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of input was wrong.
    public enum Kind: Sendable, Equatable {
        /// Camera intrinsics are malformed: not finite, negative, or outside plausible bounds.
        case invalidIntrinsics
        /// A sidecar intrinsics file is unreadable or disagrees with its image.
        case invalidSidecar
        /// An option value (hint, radius, floors, gravity, confidence) is out of range.
        case invalidOption
        /// The pack's map is missing or unreadable.
        case invalidMap
    }

    public let kind: Kind
    /// One sentence naming what is wrong and where.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
