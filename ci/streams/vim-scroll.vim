syntax on
set number
set laststatus=2
for i in range(300)
  exe "normal! \<C-e>"
  redraw
endfor
for i in range(60)
  exe "normal! \<C-f>"
  redraw
endfor
for i in range(200)
  exe "normal! \<C-y>"
  redraw
endfor
qa!
