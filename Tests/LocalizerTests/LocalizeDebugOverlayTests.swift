import Testing
import Localizer

@Suite struct LocalizeDebugOverlayTests {
    @Test func marksInliersGreenAndOutliersRed() {
        let width = 64, height = 48
        let gray = [UInt8](repeating: 200, count: width * height)
        let debug = LocalizationResult.DebugData(
            width: width, height: height, image: gray,
            keypoints: [SIMD2(5, 5), SIMD2(20, 20), SIMD2(40, 30)],
            matched: [SIMD2(20, 20), SIMD2(40, 30)],
            inlier: [true, false]
        )
        let rgb = DebugOverlay.render(debug)
        #expect(rgb.count == width * height * 3)
        func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
            let i = 3 * (y * width + x)
            return (rgb[i], rgb[i + 1], rgb[i + 2])
        }
        // The ring of radius 4 passes through (x + 4, y).
        let inlierRing = pixel(24, 20)
        #expect(inlierRing.1 > 200 && inlierRing.0 < 100)
        let outlierRing = pixel(44, 30)
        #expect(outlierRing.0 > 200 && outlierRing.1 < 100)
        let keypoint = pixel(5, 5)
        #expect(keypoint.2 > keypoint.0)
        // Elsewhere the image is the darkened gray.
        #expect(pixel(60, 45) == (150, 150, 150))
        // Marks near the border are clipped, not out of bounds.
        let edge = LocalizationResult.DebugData(width: width, height: height, image: gray, keypoints: [SIMD2(0, 0)], matched: [SIMD2(63, 47)], inlier: [false])
        #expect(DebugOverlay.render(edge).count == width * height * 3)
    }
}
