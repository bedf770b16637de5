// How wide a chart's text is drawn: the advance widths of DejaVu Sans, the font a browser on Debian
// picks for font-family sans-serif (fc-match sans-serif), so labels can be measured before they are
// placed instead of guessed at 0.6 em.
#pragma once

#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint16_t
#include <string_view> // std::string_view

namespace servestat::plot::detail {

// Advance widths of the printable ASCII characters ' ' (32) to '~' (126) in font units, 2048 to the
// em, read once from the hmtx tables of /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf and
// DejaVuSans-Bold.ttf (fonts-dejavu-core 2.37) with fontTools; the generator is not kept, these
// numbers are the whole of what it produced.
inline constexpr double font_units_per_em = 2048;
inline constexpr std::array<std::uint16_t, 95> dejavu_sans_regular_advance{{
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,  //  !"#$%&'()*+,-./
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,  // 0123456789:;<=>?
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,  // @ABCDEFGHIJKLMNO
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,  // PQRSTUVWXYZ[\]^_
    1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,  // `abcdefghijklmno
    1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,  // pqrstuvwxyz{|}~
}};
inline constexpr std::array<std::uint16_t, 95> dejavu_sans_bold_advance{{
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748,  //  !"#$%&'()*+,-./
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188,  // 0123456789:;<=>?
    2048, 1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741,  // @ABCDEFGHIJKLMNO
    1501, 1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024,  // PQRSTUVWXYZ[\]^_
    1024, 1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407,  // `abcdefghijklmno
    1466, 1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,  // pqrstuvwxyz{|}~
}};
// The vertical box a browser gives one line of text (getBBox): DejaVu's hhea ascender 1901 and
// descender 483 font units, above and below the baseline.
inline constexpr double text_ascent_em = 1901 / font_units_per_em, text_descent_em = 483 / font_units_per_em;

// A code point outside ASCII counts one em: as wide as DejaVu's widest common symbols (… — ≤ →)
// and as a CJK ideograph from a fallback font, so unknown text errs on the side of room.
inline constexpr double non_ascii_em = 1.0;

// Bytes of the UTF-8 sequence a lead byte starts; a stray continuation byte counts as one.
inline std::size_t utf8_length(unsigned char lead) noexcept {
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    if (lead >= 0xC0) return 2;
    return 1;
}

// The width in em of the code point starting at text[at]; tabs and control characters count as a space.
inline double advance_em(std::string_view text, std::size_t at, bool bold) noexcept {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c >= 0x80) return non_ascii_em;
    const auto& table = bold ? dejavu_sans_bold_advance : dejavu_sans_regular_advance;
    return table[c >= 32 && c < 127 ? c - 32 : 0] / font_units_per_em;
}

// Width in pixels of `text` drawn at `size` px: per-character advances, without kerning (which
// only ever narrows DejaVu's pairs), so the measure never falls short of what is drawn.
inline double text_width(std::string_view text, int size = 12, bool bold = false) noexcept {
    double em = 0;
    for (std::size_t at = 0; at < text.size(); at += utf8_length(static_cast<unsigned char>(text[at])))
        em += advance_em(text, at, bold);
    return em * size;
}

// Height of one line's box at `size` px: ascent plus descent.
inline double text_height(int size = 12) noexcept { return (text_ascent_em + text_descent_em) * size; }

} // namespace servestat::plot::detail
