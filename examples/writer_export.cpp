// fl::writer: many small writes of text and numbers, buffered, to a file
// descriptor or straight into an fl::string; fl::read_file/write_file for
// whole files.
#include <fl/io.hpp>
#include <fl/writer.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

int main() {
  // Into a string: the text is written into the string's own buffer.
  fl::string csv;
  {
    fl::writer w(csv);
    w << "id,value\n";
    for (int i = 0; i < 1000; ++i) w << i << ',' << (i + 0.25) << '\n';
  }  // the writer's end sets csv's size

  // Whole files, with errors as std::system_error naming the path.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "fl_example_export.csv";
  fl::write_file(file, csv);
  const fl::string back = fl::read_file(file);
  std::filesystem::remove(file);

  // To a descriptor: a 64 KiB buffer, written out when full and by flush().
  fl::writer out(STDOUT_FILENO);
  out << "exported " << back.size()
      << " bytes, last line: " << back.substr(back.rfind('\n', back.size() - 2) + 1);
  out.flush();
  return back == csv && csv.starts_with("id,value\n0,0.25\n") ? 0 : 1;
}
